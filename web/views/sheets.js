// The sheets a dataset can query (the datasource listing), with what the
// service found wrong in each.
import { request } from '../api.js';
import { fail, h, page } from '../ui.js';
import { recordsTable } from './datasets.js';

export async function sheets() {
  const list = h('div', {});
  page('Sheets', h('p', {}, 'The spreadsheets in the sheets folder that a dataset can query.'), list);
  try {
    const listing = await request('/api/v1/datasources/');
    const entries = Object.entries(listing);
    if (!entries.length) list.replaceWith(h('p', {}, 'No sheets: put .xlsx or .csv files in the sheets folder.'));
    for (const [endpoint, s] of entries) {
      const problems = Array.isArray(s.problems) ? s.problems : [];
      list.append(h('section', { class: 'panel', 'aria-label': s.name },
        h('h2', {}, s.name), h('p', {}, s.description), h('p', { class: 'meta' }, h('code', {}, endpoint)),
        problems.length ? recordsTable(problems, 'Problems') : h('p', {}, 'No problems found.')));
    }
  } catch (e) {
    fail(e);
  }
}
