// The picture of a dataset's change (docs/api.md: Diffs), through
// GET /api/v1/output/dataset/{id}/diff/{layout}/svg/: both versions laid out
// once, so what did not change is drawn unchanged; its counts are the JSON
// diff's (routers, not site groups); site clusters kept; a removed circuit
// drawn between its routers.
import assert from 'node:assert/strict';
import { writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pictureBoxes } from '../render/picture-geometry.ts';
import { activeContent } from '../render/svg-check.ts';
import { body, start, type Started } from '../routes/fixtures.ts';

const HEAD = 'id,name,source,destination,capacity,source_site,destination_site,source_latitude,source_longitude,destination_latitude,destination_longitude';
const AT: Record<string, [string, number, number]> = {
  HAM1: ['HAM', 53.55, 10.0], HAM2: ['HAM', 53.55, 10.0], BER1: ['BER', 52.52, 13.4], FRA1: ['FRA', 50.11, 8.68], MUC1: ['MUC', 48.14, 11.58], LEI1: ['LEI', 51.34, 12.37],
};
const row = (id: string, a: string, b: string, capacity: number) =>
  [id, `${a.toLowerCase()}-${b.toLowerCase()}`, a, b, capacity, AT[a][0], AT[b][0], AT[a][1], AT[a][2], AT[b][1], AT[b][2]].join(',');
/** Version 1; version 2 drops ber1-muc1, adds LEI1 with ber1-lei1, and upgrades fra1-muc1 from 100 to 400. */
const V1 = [row('1', 'HAM1', 'BER1', 100), row('2', 'HAM2', 'FRA1', 100), row('3', 'FRA1', 'MUC1', 100), row('4', 'BER1', 'MUC1', 10), row('5', 'HAM1', 'HAM2', 400)];
const V2 = [row('1', 'HAM1', 'BER1', 100), row('2', 'HAM2', 'FRA1', 100), row('3', 'FRA1', 'MUC1', 400), row('6', 'BER1', 'LEI1', 10), row('5', 'HAM1', 'HAM2', 400)];
const revision = (n: number) => ({
  name: 'Germany',
  query: {
    endpoint: 'spreadsheet?sheet_id=de&sheet_name=de', node_deduplication_field: null, node_group_criteria: ['site'], node_group_layout: null,
    filters: [{ field: 'capacity', operator: 'not_equal', value: [String(n)] }],
  },
});

let t: Started;
let id: string;
before(async () => {
  t = await start();
  const dir = t.settings.datasources.spreadsheet.dir;
  await mkdir(dir, { recursive: true });
  const sheet = path.join(dir, 'de.csv');
  await writeFile(sheet, `${[HEAD, ...V1].join('\n')}\n`);
  // A new dataset's first version has no results yet; each PUT runs the query (versions 2 and 3).
  id = (await body(await t.request('/api/v1/dataset/', { method: 'POST', token: t.write, json: revision(0) }))).datasetId;
  assert.equal((await t.request(`/api/v1/dataset/id/${id}/`, { method: 'PUT', token: t.write, json: revision(1) })).status, 200);
  await writeFile(sheet, `${[HEAD, ...V2].join('\n')}\n`);
  assert.equal((await t.request(`/api/v1/dataset/id/${id}/`, { method: 'PUT', token: t.write, json: revision(2) })).status, 200);
});
after(async () => { await t.close(); });

const picture = async (layout: string) => {
  const res = await t.request(`/api/v1/output/dataset/${id}/diff/${layout}/svg/?from=2&to=3`, { token: t.read });
  assert.equal(res.status, 200, await res.clone().text());
  return res.text();
};
/** Names drawn in each status group (leaf nodes: a <g> with a translate and a <title>). */
function statuses(svg: string) {
  const p = pictureBoxes(svg);
  const out: Record<string, string[]> = { added: [], removed: [], changed: [], unchanged: [] };
  for (const n of p.nodes) {
    const title = Array.from(p.doc.getElementsByTagName('title')).find((x) => x.textContent === n.name && (x.parentNode as unknown as Element).getAttribute('transform'));
    let g = title?.parentNode as unknown as Element | null;
    while (g && !g.getAttribute?.('data-diff')) g = g.parentNode as unknown as Element | null;
    out[g?.getAttribute('data-diff') ?? '?']?.push(n.name);
  }
  return { p, out };
}

describe('GET /api/v1/output/dataset/{id}/diff/{layout}/svg/', () => {
  for (const layout of ['logical', 'geographic']) {
    it(`${layout}: marks only what changed, with the JSON diff's counts of routers and circuits`, async () => {
      const diff = await body(await t.request(`/api/v1/dataset/id/${id}/diff?from=2&to=3`, { token: t.read }));
      assert.deepEqual(diff.nodes.added.map((n: { name: string }) => n.name), ['LEI1']);
      const svg = await picture(layout);
      const { p, out } = statuses(svg);
      assert.deepEqual(out.added, ['LEI1']);
      assert.deepEqual(out.changed, []);
      assert.deepEqual(out.removed, []);
      assert.deepEqual(out.unchanged.sort(), ['BER1', 'FRA1', 'HAM1', 'HAM2', 'MUC1']);
      const legend = Array.from(p.doc.getElementsByTagName('g')).find((g) => g.getAttribute('class') === 'legend')!;
      const rows = Array.from(legend.getElementsByTagName('text')).map((x) => x.textContent);
      const n = (k: string) => diff.nodes[k].length, e = (k: string) => diff.edges[k].length;
      const s = (x: number, w: string) => `${x} ${w}${x === 1 ? '' : 's'}`;
      assert.deepEqual(rows, [
        `added: ${s(n('added'), 'node')}, ${s(e('added'), 'edge')}`, `removed: ${s(n('removed'), 'node')}, ${s(e('removed'), 'edge')}`,
        `changed: ${s(n('changed'), 'node')}, ${s(e('changed'), 'edge')}`, 'unchanged: 5 nodes, 3 edges',
      ]);
      assert.deepEqual([e('added'), e('removed'), e('changed')], [1, 1, 1]);
      assert.deepEqual(activeContent(svg), []);
    });
  }

  it('logical: keeps the sites as clusters and draws the removed circuit between its routers', async () => {
    const svg = await picture('logical');
    const { p } = statuses(svg);
    const titles = Array.from(p.doc.getElementsByTagName('g')).filter((g) => g.getAttribute('class') === 'cluster-titles')
      .flatMap((g) => Array.from(g.getElementsByTagName('text')).map((x) => x.textContent));
    assert.deepEqual(titles.sort(), ['BER', 'FRA', 'HAM', 'LEI', 'MUC']);
    const removed = Array.from(p.doc.getElementsByTagName('g')).find((g) => g.getAttribute('data-diff') === 'removed' && g.getElementsByTagName('path').length > 0)!;
    const d = removed.getElementsByTagName('path')[0].getAttribute('d')!;
    const nums = (d.match(/-?[\d.]+/g) ?? []).map(Number);
    const ends = [[nums[0], nums[1]], [nums[nums.length - 2], nums[nums.length - 1]]];
    const centre = (name: string) => { const b = p.nodes.find((x) => x.name === name)!.box; return [(b.x0 + b.x1) / 2, (b.y0 + b.y1) / 2]; };
    const near = (a: number[], b: number[]) => Math.hypot(a[0] - b[0], a[1] - b[1]) < 1;
    const [ber, muc] = [centre('BER1'), centre('MUC1')];
    assert.ok((near(ends[0], ber) && near(ends[1], muc)) || (near(ends[0], muc) && near(ends[1], ber)), `${d} between BER1 ${ber} and MUC1 ${muc}`);
  });
});
