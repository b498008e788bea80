// Datasets: the list, and a dataset's page with its picture, its sheet rows
// (the stored results), the rows the sheet could not use, refresh (running
// its query again), and its versions and diffs with the change's picture.
import { hasRoute, request } from '../api.js';
import { act, fail, h, page, say, when } from '../ui.js';
import { diffPanel, versionsPanel } from './history.js';

export async function datasets() {
  const list = h('ul', { class: 'rows' });
  page('Datasets', h('p', {}, 'Each dataset is a query over a sheet; its versions keep the rows each run found.'), list);
  try {
    const all = await request('/api/v1/datasets/?fields=datasetId,name,version,lastUpdatedOn,problems');
    if (!all.length) list.replaceWith(h('p', {}, 'No datasets yet.'));
    for (const d of all) {
      list.append(h('li', {}, h('a', { href: `#/dataset/${d.datasetId}` }, d.name),
        ` · version ${d.version} · ${when(d.lastUpdatedOn)}`, d.problems?.length ? ` · ${d.problems.length} problem rows` : ''));
    }
  } catch (e) {
    fail(e);
  }
}

/** A table of records (the first columns of the first rows), scrolling inside its own box. */
export function recordsTable(records, caption, max = 200) {
  const columns = [...new Set(records.slice(0, 50).flatMap((r) => Object.keys(r)))]
    .filter((c) => c !== 'endpoints' && c !== 'meta').slice(0, 10);
  const cell = (v) => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
  return h('div', { class: 'scroll' }, h('table', {}, h('caption', {}, caption),
    h('thead', {}, h('tr', {}, columns.map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, records.slice(0, max).map((r) => h('tr', {}, columns.map((c) => h('td', {}, cell(r[c]))))))));
}

/** Runs the query again: the refresh route where the service has one, else an update with the same query (which runs it). */
async function refresh(d) {
  const path = `/api/v1/dataset/id/${d.datasetId}/refresh/`;
  if (await hasRoute('POST', path)) return request(path, { method: 'POST' });
  return request(`/api/v1/dataset/id/${d.datasetId}/`, { method: 'PUT', json: { name: d.name, query: d.query } });
}

export async function datasetPage(id) {
  page('Dataset');
  let d;
  try {
    d = await request(`/api/v1/dataset/id/${id}/`);
  } catch (e) {
    return fail(e);
  }
  const layout = d.query?.layout === 'logical' ? 'logical' : 'geographic';
  const panels = h('div', { class: 'panels' });
  const refreshButton = h('button', { type: 'button' }, 'Refresh');
  refreshButton.addEventListener('click', () => act(refreshButton, async () => {
    const next = await refresh(d);
    say(`Refreshed: version ${next.version}.`);
    await datasetPage(id);
  }));
  const results = d.results ?? [];
  page(d.name,
    h('p', { class: 'meta' }, `Version ${d.version} · ${when(d.lastUpdatedOn)} · query ${d.query?.endpoint ?? ''}`),
    h('div', { class: 'row', role: 'toolbar', 'aria-label': 'Dataset actions' },
      refreshButton,
      h('button', { type: 'button', onclick: () => panels.replaceChildren(versionsPanel('dataset', id, { onChange: () => datasetPage(id) })) }, 'Versions'),
      h('button', {
        type: 'button',
        onclick: () => panels.replaceChildren(diffPanel('dataset', id, d.version, (from, to) => `/api/v1/output/dataset/${id}/diff/${layout}/svg/?from=${from}&to=${to}`)),
      }, 'Diff')),
    panels,
    h('map-picture', { src: `/api/v1/output/dataset/${id}/${layout}/snapshot/svg/?width=900`, auth: true, zoomable: true, alt: `Picture of the dataset ${d.name}` }),
    h('h2', {}, 'Problems'),
    d.problems?.length ? recordsTable(d.problems, `Rows the sheet could not use${d.problemCount ? ` (${d.problemCount} in all)` : ''}`)
      : h('p', {}, 'None: every row was used.'),
    h('h2', {}, 'Rows'),
    results.length ? recordsTable(results, `${results.length} records from the last run${results.length > 200 ? ' (the first 200 shown)' : ''}`)
      : h('p', {}, 'No stored rows: refresh to run the query.'));
}
