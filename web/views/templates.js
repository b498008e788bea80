// Node templates, each with a preview: a dataset drawn with the template
// (the first dataset's logical picture), and its versions.
import { request } from '../api.js';
import { fail, h, page, when } from '../ui.js';
import { versionsPanel } from './history.js';

export async function templates() {
  const list = h('ul', { class: 'cards' });
  page('Templates', h('p', {}, 'The markup each node is drawn with. The previews draw the first dataset with each template.'), list);
  try {
    const [all, sets] = await Promise.all([request('/api/v1/templates/'), request('/api/v1/datasets/?fields=datasetId&limit=1')]);
    for (const t of all) {
      const panel = h('div', {});
      list.append(h('li', { class: 'card' }, h('h2', {}, t.name),
        sets[0] ? h('map-picture', { src: `/api/v1/output/dataset/${sets[0].datasetId}/logical/snapshot/svg/?template=${t.templateId}&width=480`, auth: true, alt: `Preview of the template ${t.name}` }) : '',
        h('p', { class: 'meta' }, `Version ${t.version} · ${when(t.lastUpdatedOn)}`),
        h('details', {}, h('summary', {}, 'Markup'), h('pre', {}, t.template)),
        h('button', { type: 'button', onclick: () => panel.replaceChildren(versionsPanel('template', t.templateId)) }, `Versions of ${t.name}`),
        panel));
    }
  } catch (e) {
    fail(e);
  }
}
