// The topology memo: the same stored results (named by their key, the hash
// of their content) and options answer the same frozen topology; any option
// that shapes the result, or other results, builds anew; failed builds are not
// remembered; the cache stays within its bound.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildTopology } from '../../render/topology.ts';
import { buildTopologyCached, createTopologyCache, topologyCacheStats } from '../../render/topology-cache.ts';
import { backbone } from './fixtures.ts';

const base = { name: 'Backbone', layout: 'geographic' as const };

describe('buildTopologyCached', () => {
  it('answers the same topology for the same records and options, equal to a fresh build', async () => {
    const records = backbone();
    const a = await buildTopologyCached('same', records, base);
    const b = await buildTopologyCached('same', records, { ...base });
    assert.equal(a, b);
    assert.deepEqual(a, await buildTopology(records, base));
  });

  it('freezes what it shares, so a caller cannot change later answers', async () => {
    const t = await buildTopologyCached('frozen', backbone(), base);
    assert.throws(() => { t.nodes[0].meta.svg = '<g/>'; }, TypeError);
    assert.throws(() => { t.edges.push(t.edges[0]); }, TypeError);
  });

  const variants: [string, object][] = [
    ['name', { name: 'Other' }],
    ['layout', { layout: 'logical' }],
    ['template', { template: '<g data-width="4" data-height="4"><circle r="2"/></g>' }],
    ['query', { query: { node_deduplication_field: 'site' } }],
    ['layer', { layer: 'head' }],
  ];
  for (const [what, change] of variants) {
    it(`builds anew when the ${what} differs`, async () => {
      const records = backbone();
      const a = await buildTopologyCached(`options ${what}`, records, base);
      const b = await buildTopologyCached(`options ${what}`, records, { ...base, ...change });
      assert.notEqual(a, b);
      assert.deepEqual(b, await buildTopology(records, { ...base, ...change }));
    });
  }

  it('builds anew for other stored results (a new version), once for the same results read into another array (another store\'s copy)', async () => {
    const first = backbone();
    const changed = backbone().map((r, i) => (i === 0 ? { ...r, name: 'renamed' } : r));
    const a = await buildTopologyCached('first', first, base);
    const b = await buildTopologyCached('changed', changed, base);
    assert.equal(await buildTopologyCached('first', structuredClone(first), base), a);
    assert.notEqual(a, b);
    assert.ok(b.edges.some((e) => e.name === 'renamed'));
    assert.ok(!a.edges.some((e) => e.name === 'renamed'));
  });

  it('does not remember a failed build', async () => {
    const records = backbone();
    const bad = { ...base, template: '<g><unclosed></g>' };
    await assert.rejects(buildTopologyCached('failing', records, bad));
    const before = topologyCacheStats().entries;
    await assert.rejects(buildTopologyCached('failing', records, bad));
    await new Promise((r) => setImmediate(r));
    assert.equal(topologyCacheStats().entries, before);
  });

  it('keeps the items held within its bound, dropping the least recently used', async () => {
    // Each array holds about 40% of the bound (3 items per record), so two fit and a third pushes one out.
    const cache = createTopologyCache(300);
    const sized = (name: string) => backbone().concat(Array.from({ length: 36 }, () => ({ ...backbone()[0], name })));
    const [a, b, c] = [sized('a'), sized('b'), sized('c')];
    const ta = await cache.build('a', a, base);
    const tb = await cache.build('b', b, base);
    assert.equal(await cache.build('a', a, base), ta); // a is now the most recently used
    await cache.build('c', c, base);
    assert.deepEqual(cache.stats(), { entries: 2, items: 2 * (3 * a.length + 1) });
    assert.equal(await cache.build('a', a, base), ta, 'the recently used one stays');
    assert.notEqual(await cache.build('b', b, base), tb, 'the least recently used one was dropped');
  });
});
