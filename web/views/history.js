// A resource's versions (with their summaries, restore and revert) and the
// diff between any two of them, with the picture of the change where the API
// draws one (left out where the service lists no such route: not every version has it).
import { hasRoute, pictureUrl, request } from '../api.js';
import { act, fail, h, say, when } from '../ui.js';

/** `kind`: map, dataset or template; `diffPicture(from, to)`: the path of the change's picture, if any. */
export function versionsPanel(kind, id, { onChange, onView } = {}) {
  const body = h('tbody');
  const panel = h('section', { class: 'panel', 'aria-label': 'Versions' }, h('h2', {}, 'Versions'),
    h('div', { class: 'scroll' }, h('table', {},
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Version'), h('th', { scope: 'col' }, 'When'),
        h('th', { scope: 'col' }, 'Who'), h('th', { scope: 'col' }, 'Change'), h('th', { scope: 'col' }, 'Actions'))),
      body)));
  const base = `/api/v1/${kind}/id/${id}`;
  (async () => {
    const versions = await request(`${base}/history/?limit=100`);
    const latest = versions[0];
    for (const v of versions) {
      const actions = h('td', {});
      if (onView && !v.deleted) actions.append(h('button', { type: 'button', onclick: () => onView(v.version) }, `Show version ${v.version}`));
      if (v === latest && v.deleted) {
        const restore = h('button', { type: 'button' }, 'Restore');
        restore.addEventListener('click', () => act(restore, async () => {
          await request(`${base}/restore/`, { method: 'POST' });
          say(`Restored: a new version with the last content.`);
          onChange?.();
        }));
        actions.append(restore);
      } else if (v !== latest && !v.deleted) {
        const revert = h('button', { type: 'button' }, `Revert to version ${v.version}`);
        revert.addEventListener('click', () => act(revert, async () => {
          await request(`${base}/revert/?version=${v.version}`, { method: 'POST' });
          say(`Reverted: a new version with version ${v.version}'s content.`);
          onChange?.();
        }));
        actions.append(revert);
      }
      body.append(h('tr', {}, h('td', {}, String(v.version)), h('td', {}, when(v.lastUpdatedOn)), h('td', {}, v.lastUpdatedBy),
        h('td', {}, v.summary ?? '', v.deleted ? ' (deleted)' : '', v.public ? ' (published)' : ''), actions));
    }
  })().catch(fail);
  return panel;
}

/** A count and the first few of a diff's lists, in words. */
function describeDiff(diff) {
  const items = [];
  const add = (label, list) => {
    if (!Array.isArray(list) || !list.length) return;
    items.push(h('li', {}, `${label}: ${list.length}`,
      h('ul', {}, list.slice(0, 8).map((c) => h('li', {}, c.path ? `${c.op} ${c.path}` : c.name ?? c.text ?? JSON.stringify(c))))));
  };
  add('Changes', diff.changes);
  add('Override changes', diff.overrides);
  for (const part of ['nodes', 'edges']) {
    for (const what of ['added', 'removed', 'changed']) add(`${part[0].toUpperCase()}${part.slice(1)} ${what}`, diff[part]?.[what]);
  }
  add('Lines', diff.lines);
  return items.length ? h('ul', { class: 'diff' }, items) : h('p', {}, 'No change between these versions.');
}

export function diffPanel(kind, id, latestVersion, diffPicture) {
  const options = () => Array.from({ length: latestVersion }, (_, i) => h('option', { value: String(i + 1) }, `Version ${i + 1}`));
  const from = h('select', { id: `diff-from-${id}` }, options());
  const to = h('select', { id: `diff-to-${id}` }, options());
  from.value = String(Math.max(1, latestVersion - 1));
  to.value = String(latestVersion);
  const out = h('div', { class: 'diff-out' });
  const show = h('button', { type: 'submit' }, 'Show the diff');
  const form = h('form', { class: 'row' }, h('label', { for: from.id }, 'From'), from, h('label', { for: to.id }, 'To'), to, show);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    act(show, async () => {
      const q = `?from=${from.value}&to=${to.value}`;
      const diff = await request(`/api/v1/${kind}/id/${id}/diff/${q}`);
      out.replaceChildren(describeDiff(diff));
      const path = diffPicture?.(from.value, to.value);
      if (!path || !(await hasRoute('GET', path))) return; // this service draws no such picture
      out.prepend(h('img', { class: 'diff-picture', src: await pictureUrl(path), alt: `Picture of the change from version ${from.value} to ${to.value}` }));
    });
  });
  return h('section', { class: 'panel', 'aria-label': 'Diff' }, h('h2', {}, 'Diff'), form, out);
}
