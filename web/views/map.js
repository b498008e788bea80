// A map's page: its picture with zoom and pan, and the controls "Versions",
// "Diff", "Publish"/"Unpublish" and "Embed" (the snippets a dashboard or
// status page needs, to copy). Anyone may open a published map's page.
import { request, signedIn } from '../api.js';
import { act, copy, fail, h, page, say } from '../ui.js';
import { diffPanel, versionsPanel } from './history.js';
import { mapPicture, trafficSteps } from './maps.js';

/** The snippets and URLs that show a published map elsewhere. */
function embedPanel(map) {
  if (!map.public) return h('section', { class: 'panel', 'aria-label': 'Embed' }, h('h2', {}, 'Embed'),
    h('p', {}, 'Publish the map first: embedded pictures are served without a token, for published maps only.'));
  const base = `${location.origin}/api/v1/public/output/map/${map.mapId}/`;
  const alt = map.name.replace(/[&"<>]/g, (c) => `&#${c.charCodeAt(0)};`);
  const snippets = [
    ['SVG picture for a web page', `<img src="${base}svg/" alt="${alt}">`],
    ['PNG picture (chat, e-mail, reports)', `<img src="${base}png/" alt="${alt}">`],
    ['URL for Grafana\'s network map panel ("configure from URL")', base],
    ['Configuration URL for ESnet\'s esnet-map-canvas component', base],
  ];
  return h('section', { class: 'panel', 'aria-label': 'Embed' }, h('h2', {}, 'Embed'),
    snippets.map(([label, text], i) => {
      const field = h('textarea', { id: `embed-${i}`, readonly: true, rows: '2' }, text);
      return h('div', { class: 'snippet' }, h('label', { for: field.id }, label), field,
        h('button', { type: 'button', onclick: () => copy(text, field) }, `Copy: ${label}`));
    }));
}

async function load(id) {
  if (!signedIn()) return { map: { ...(await request(`/api/v1/public/output/map/${id}/json/`)), public: true }, etag: null };
  const res = await request(`/api/v1/map/id/${id}/`, { raw: true });
  return { map: await res.json(), etag: res.headers.get('ETag') };
}

export async function mapPage(id) {
  page('Map');
  let loaded;
  try {
    loaded = await load(id);
  } catch (e) {
    if (e.status === 404 && signedIn()) return deletedMap(id, e);
    return fail(e);
  }
  const { map, etag } = loaded;
  const picture = mapPicture(map, undefined, { zoomable: true }, await trafficSteps());
  const panels = h('div', { class: 'panels' });
  const toggle = (label, make) => h('button', {
    type: 'button', 'aria-expanded': 'false', onclick: (e) => {
      const open = e.currentTarget.getAttribute('aria-expanded') === 'true';
      for (const b of e.currentTarget.parentElement.querySelectorAll('[aria-expanded]')) b.setAttribute('aria-expanded', 'false');
      if (open) return panels.replaceChildren();
      e.currentTarget.setAttribute('aria-expanded', 'true');
      panels.replaceChildren(make());
    },
  }, label);
  const tools = h('div', { class: 'row', role: 'toolbar', 'aria-label': 'Map actions' }, toggle('Embed', () => embedPanel(map)));
  if (signedIn()) {
    const view = (version) => {
      picture.setAttribute('src', `/api/v1/output/map/${id}/svg/?version=${version}`);
      picture.setAttribute('auth', '');
      picture.load();
      say(`Showing version ${version}.`);
    };
    tools.prepend(
      toggle('Versions', () => versionsPanel('map', id, { onView: view, onChange: () => mapPage(id) })),
      toggle('Diff', () => diffPanel('map', id, map.version, (from, to) => `/api/v1/output/map/${id}/diff/svg/?from=${from}&to=${to}`)));
    const publish = h('button', { type: 'button' }, map.public ? 'Unpublish' : 'Publish');
    publish.addEventListener('click', () => act(publish, async () => {
      await request(`/api/v1/map/id/${id}/${map.public ? 'unpublish' : 'publish'}/`, { method: 'POST', headers: etag ? { 'If-Match': etag } : {} });
      say(map.public ? 'Unpublished: embedded pictures stop showing it.' : 'Published: anyone can now see it, and embed it.');
      await mapPage(id);
    }));
    tools.append(publish, h('a', { class: 'button', href: `#/compose/${id}` }, 'Edit in the composer'));
  }
  page(map.name,
    h('p', { class: 'meta' }, `Version ${map.version} · ${map.public ? 'published' : 'not published'}`),
    tools, picture, panels);
}

async function deletedMap(id, error) {
  try {
    page('Deleted map', h('p', {}, error.message), versionsPanel('map', id, { onChange: () => mapPage(id) }));
  } catch (e) {
    fail(e);
  }
}
