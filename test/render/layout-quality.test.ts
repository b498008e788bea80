// Logical layouts measured, not assumed (docs/render.md: Layout quality): on
// the corpus (a ring, a dual-homed hierarchy, a generated mesh, real R&E
// backbones from the Internet Topology Zoo, the demo's datasets), our
// drawing beside Graphviz `dot` and `neato` run here on the same graphs,
// each read back and measured by render/layout-quality.ts.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { renderTopologySvg } from '../../render/svg.ts';
import { buildTopology } from '../../render/topology.ts';
import { skipWithout } from '../helpers/components.ts';
import { backbones, demoGraphs, dualHomed, mesh, ring, type CorpusGraph } from '../helpers/layout-corpus.ts';
import { dotDrawing, dotSource, hasDot, svgDrawing } from '../helpers/layout-geometry.ts';
import { describeQuality, type Quality, quality } from '../../render/layout-quality.ts';

// Skipped under `npm run test:fast` and where Graphviz is absent; in CI its absence fails the run.
const NO_DOT = skipWithout('Graphviz', hasDot(), 'dot and neato: apt-get install graphviz');
if (NO_DOT) console.log(`# ${NO_DOT}`);

const drawn = async (g: CorpusGraph) => {
  const t = await buildTopology(g.records, { name: g.name, layout: 'logical', query: g.query as never });
  const geo = new Map<string, [number, number]>();
  for (const r of g.records) for (const e of r.endpoints) if (typeof e.latitude === 'number') geo.set(e.name, [e.latitude, Number(e.longitude)]);
  return { t, d: svgDrawing(renderTopologySvg(t)), geo: g.geo ? geo : undefined };
};

describe('a ring', () => {
  it('of 6 routers is drawn as a simple polygon in ring order, straight and without a crossing', async () => {
    const { d } = await drawn(ring(6));
    const q = quality(d);
    assert.equal(q.crossings, 0);
    assert.equal(q.bends, 0);
    const centres = [...d.nodes].map(([name, r]) => ({ name, x: r.x + r.w / 2, y: r.y + r.h / 2 }));
    const cx = centres.reduce((s, c) => s + c.x, 0) / 6, cy = centres.reduce((s, c) => s + c.y, 0) / 6;
    const around = centres.sort((a, b) => Math.atan2(a.y - cy, a.x - cx) - Math.atan2(b.y - cy, b.x - cx)).map((c) => Number(c.name.slice(1)));
    // In ring order, one way round or the other.
    const steps = around.map((v, i) => (around[(i + 1) % 6] - v + 6) % 6);
    assert.ok(steps.every((s) => s === 1) || steps.every((s) => s === 5), `around the centre: ${around}`);
    assert.ok(q.lengthCv < 0.1, `circuits alike: CV ${q.lengthCv.toFixed(2)}`);
  });
});

describe('a backbone with coordinates (Abilene)', () => {
  it('is drawn as a schematic: straight, no crossing, the compass order kept for 90 % of pairs', async () => {
    const g = backbones().find((b) => b.name.includes('abilene'))!;
    const { d, geo } = await drawn(g);
    const q = quality(d, geo);
    assert.equal(q.crossings, 0, describeQuality(q));
    assert.equal(q.bends, 0, describeQuality(q));
    assert.ok(q.compassKept! >= 0.9, describeQuality(q));
  });
});

/** The thresholds, each against Graphviz on the same graph: [name, holds]. */
const RULES: [string, (ours: Quality, dot: Quality, neato: Quality) => boolean][] = [
  ['crossings at most the better of dot and neato', (o, d, n) => o.crossings <= Math.min(d.crossings, n.crossings)],
  ['no edge through a node', (o) => o.through === 0],
  ['total edge length within 1.2x neato\'s', (o, _, n) => o.totalLength <= 1.2 * n.totalLength],
  ['edge length spread (CV) within 1.2x neato\'s', (o, _, n) => o.lengthCv <= 1.2 * n.lengthCv],
  ['area per node at most dot\'s', (o, d) => o.areaPerNode <= d.areaPerNode],
  // In schematic views: for nodes with coordinates within half the globe (render/compass-order.ts).
  ['compass order kept for at least 90 % of pairs', (o) => o.compassKept === null || o.compassKept >= 0.9],
];

describe('the corpus beside dot and neato', { skip: NO_DOT }, () => {
  for (const g of [ring(6), dualHomed(), mesh(40, 70), ...backbones(), ...demoGraphs()]) {
    describe(g.name, () => {
      let ours: Quality, dot: Quality, neato: Quality;
      before(async () => {
        const { t, d, geo } = await drawn(g);
        ours = quality(d, geo);
        const source = dotSource(t, 'TB');
        dot = quality(dotDrawing(source), geo, false);
        neato = quality(dotDrawing(source, 'neato'), geo, false);
      });
      for (const [rule, holds] of RULES) {
        it(rule, () => assert.ok(holds(ours, dot, neato), `\n  ours:  ${describeQuality(ours)}\n  dot:   ${describeQuality(dot)}\n  neato: ${describeQuality(neato)}`));
      }
      // So that the compass rule holds for the schematics, not by having nothing to count: the Exchange points alone
      // lie round the world.
      const schematic = g.geo && !g.name.includes('Exchange point');
      it(schematic ? 'is measured as a schematic view' : 'has no compass order to keep', () => assert.equal(ours.compassKept !== null, schematic));
    });
  }
});
