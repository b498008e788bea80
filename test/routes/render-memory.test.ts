// output.renderMemoryMB through HTTP (docs/api.md: Limits): a picture whose
// drawing needs more heap than a render thread may use is 422 naming the
// setting; the thread is replaced, so with a single render thread the
// requests after it are still drawn. The picture: a geographic dataset of
// 16,000 circuits. 8,000 used to outgrow a 64 MB heap, but leaner drawing
// code let them fit now and then, so the test asks for twice as many.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { body, start, type Started } from './fixtures.ts';

const HEADER = 'id,name,source,destination,capacity,source_latitude,source_longitude,destination_latitude,destination_longitude';
const circuits = (n: number) => Array.from({ length: n }, (_, i) =>
  `c${i},A${i}-B${i},A${i},B${i},10,${(i % 170) - 85 + 0.1},${((i * 7) % 360) - 180},${((i * 3) % 170) - 85},${((i * 11) % 360) - 180}`);

let t: Started;
const datasetIds: Record<string, string> = {};

async function dataset(name: string, rows: string[]) {
  await writeFile(path.join(t.settings.datasources.spreadsheet.dir, `${name}.csv`), `${[HEADER, ...rows].join('\n')}\n`);
  const res = await t.request('/api/v1/dataset/', { method: 'POST', token: t.write, json: { name, query: {
    endpoint: `spreadsheet?sheet_id=${name}&sheet_name=${name}`, node_deduplication_field: null, node_group_criteria: null, node_group_layout: null, filters: [] } } });
  assert.equal(res.status, 201, await res.clone().text());
  datasetIds[name] = (await body(res)).datasetId;
}

const picture = (name: string) => t.request(`/api/v1/output/dataset/${datasetIds[name]}/geographic/static/svg/`, { token: t.read });

/** mts_render_rejections_total{reason="budget"} as /metrics says it. */
async function budgetRejections(): Promise<number> {
  const text = await (await t.request('/metrics')).text();
  return Number(/^mts_render_rejections_total\{reason="budget"\} (\S+)$/m.exec(text)?.[1] ?? 0);
}

before(async () => {
  // One thread: a request after the failed one is drawn only if the thread was replaced.
  // A generous time budget, so the heap limit is what stops the render, even on a loaded machine.
  t = await start({ settings: { output: { renderMemoryMB: 64, renderTimeoutSeconds: 300, renderThreads: 1 } } });
  await mkdir(t.settings.datasources.spreadsheet.dir, { recursive: true });
  await dataset('huge', circuits(16000));
  await dataset('small', circuits(20));
});
after(async () => { await t.close(); });

describe('a picture over output.renderMemoryMB', () => {
  it('is 422 naming the setting, the thread is replaced and the next requests are drawn', async () => {
    const before = await budgetRejections();
    const res = await picture('huge');
    assert.equal(res.status, 422);
    const { detail, code } = await body(res);
    assert.equal(code, 'validation_failed');
    assert.match(detail, /64 MB .*output\.renderMemoryMB/);
    assert.equal(await budgetRejections(), before + 1);

    assert.equal((await t.request('/healthz')).status, 200);
    const small = await picture('small');
    assert.equal(small.status, 200, await small.clone().text());
    assert.match(await small.text(), /^<svg /);
  });
});
