// The demo spreadsheets: cli/make-demo-sheets.ts generates them from its
// readable list, the committed copies in data/sheets/ match that list, and
// they read with no problem rows and enough data for maps worth showing.
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { backboneTabs, loadDemoList, makeDemoSheets } from '../../cli/make-demo-sheets.ts';
import { endpoint, query, registryFor, tempDir } from './helpers.ts';

const committed = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'data', 'sheets');
const BACKBONE = endpoint('rne-backbone', 'Circuits');
const EXCHANGES = endpoint('rne-exchanges', 'rne-exchanges');

let dir: string;
let cleanup: () => Promise<void>;
before(async () => {
  ({ dir, cleanup } = await tempDir());
  await makeDemoSheets(dir);
});
after(() => cleanup());

describe('demo spreadsheets', () => {
  it('generate into an empty folder, then leave unchanged files alone', async () => {
    const again = await makeDemoSheets(dir);
    assert.ok(again.every((line) => line.startsWith('unchanged')), again.join('\n'));
  });

  it('committed copies in data/sheets/ match the generator (run `npx tsx cli/make-demo-sheets.ts` after editing the list)', async () => {
    const lines = await makeDemoSheets(committed, { check: true });
    assert.ok(lines.every((line) => line.startsWith('unchanged')), lines.join('\n'));
  });

  it('read with no problem rows, every router and site used, several routers per site', async () => {
    const registry = registryFor(dir);
    const list = await registry.list();
    assert.deepEqual(Object.keys(list), [BACKBONE, EXCHANGES]);
    const backbone = await registry.run(query(BACKBONE));
    assert.deepEqual(backbone.problems, []);
    assert.ok(backbone.records.length >= 60, `${backbone.records.length} circuits`);
    const sites = new Set(backbone.records.flatMap((r) => r.endpoints.map((e) => e.site)));
    assert.ok(sites.size >= 40, `${sites.size} sites in use`);
    const nodes = backboneTabs(loadDemoList()).nodes.slice(1).map((n) => n[0]);
    const used = new Set(backbone.records.flatMap((r) => [r.source, r.destination]));
    assert.deepEqual(nodes.filter((n) => !used.has(n as string)), []);
    const routersPerSite = new Map<unknown, Set<string>>();
    for (const r of backbone.records) for (const e of r.endpoints) routersPerSite.set(e.site, (routersPerSite.get(e.site) ?? new Set()).add(e.name));
    assert.ok([...routersPerSite.values()].filter((s) => s.size >= 2).length >= 10);
    for (const r of backbone.records) {
      assert.ok(Number(r.capacity) > 0);
      for (const e of r.endpoints) assert.ok(typeof e.latitude === 'number' && typeof e.longitude === 'number', e.name);
    }
    const exchanges = await registry.run(query(EXCHANGES));
    assert.deepEqual(exchanges.problems, []);
    assert.ok(exchanges.records.every((r) => r.endpoints.every((e) => typeof e.latitude === 'number')));
  });

  it('suggested filters select something and not everything', async () => {
    const registry = registryFor(dir);
    const all = (await registry.run(query(BACKBONE))).records.length;
    for (const filters of [
      [{ field: 'region', operator: 'equal' as const, value: ['europe'] }],
      [{ field: 'capacity', operator: 'equal' as const, value: ['400'] }],
      [{ field: 'type', operator: 'not_equal' as const, value: ['intra-site'] }],
      [{ field: 'endpoints.country', operator: 'equal' as const, value: ['US'] }],
    ]) {
      const n = (await registry.run(query(BACKBONE, filters))).records.length;
      assert.ok(n > 0 && n < all, `${JSON.stringify(filters)}: ${n} of ${all}`);
    }
  });
});
