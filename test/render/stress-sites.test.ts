// Sites in a stress drawing (render/stress-clusters.ts): a ring of sites of
// two routers each is not a hierarchy, so it is drawn by stress, and each
// site comes out as a box around its own routers, clear of every other box
// and router, with no crossing and no circuit through a router.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { crossings, throughNodes } from '../../render/drawing-geometry.ts';
import { renderTopologySvg } from '../../render/svg.ts';
import { buildTopology } from '../../render/topology.ts';
import { inside, svgDrawing } from '../helpers/layout-geometry.ts';
import { ep, rec } from './fixtures.ts';

const overlaps = (a: { x: number; y: number; w: number; h: number }, b: typeof a) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

describe('a ring of six sites of two routers each', () => {
  it('is drawn straight, each site a box around its routers, boxes clear of each other and of other routers', async () => {
    const router = (s: number, k: number) => ep(`s${s}-r${k}`, undefined, undefined, { site: `site ${s}` });
    const records = [
      ...Array.from({ length: 6 }, (_, s) => rec(`in${s}`, `in${s}`, router(s, 1), router(s, 2))),
      ...Array.from({ length: 6 }, (_, s) => rec(`ring${s}`, `ring${s}`, router(s, 2), router((s + 1) % 6, 1))),
    ];
    const t = await buildTopology(records, { name: 'sites', layout: 'logical', query: { node_group_criteria: ['site'] } as never });
    const d = svgDrawing(renderTopologySvg(t));
    assert.equal(d.clusters.size, 6);
    assert.equal(d.nodes.size, 12);
    assert.ok(d.lines.every((l) => l.pts.length === 2), 'straight circuits: the stress drawing, not ELK\'s layers');
    assert.equal(crossings(d.lines), 0);
    assert.deepEqual(throughNodes(d), []);
    const boxes = [...d.clusters].map(([name, c]) => ({ name, box: c.box }));
    for (const { name, box } of boxes) {
      const s = name.replace('site ', '');
      for (const [router, r] of d.nodes) {
        if (router.startsWith(`s${s}-`)) assert.ok(inside(r, box), `${router} inside ${name}`);
        else assert.ok(!overlaps(r, box), `${router} clear of ${name}`);
      }
      for (const other of boxes) if (other.name !== name) assert.ok(!overlaps(box, other.box), `${name} clear of ${other.name}`);
    }
  });
});
