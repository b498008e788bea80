// Half-edges of live traffic (render/traffic-edges.ts): where they meet, how
// a utilisation picks its band, and the states' looks.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { halfEdgeMarkup, type CircuitTraffic } from '../../render/traffic-edges.ts';
import { bandColor, scaleOf, STATE_COLORS } from '../../render/traffic-scale.ts';

const bands = scaleOf(undefined);

describe('bandColor: the first band whose upTo a value does not exceed', () => {
  const table: [number, string][] = [[0, '#c0c0c0'], [1, '#c0c0c0'], [1.01, '#8c00ff'], [40, '#00c0ff'], [100, '#ff0000'], [100.5, STATE_COLORS.over]];
  for (const [percent, color] of table) it(`${percent} % is ${color}`, () => assert.equal(bandColor(bands, percent), color));
  it('takes a scale of its own and the colour-blind one', () => {
    assert.equal(bandColor(scaleOf([{ upTo: 50, color: '#123456' }]), 30), '#123456');
    assert.equal(bandColor(scaleOf('colorblind'), 5), '#440154');
  });
});

describe('halfEdgeMarkup', () => {
  const t: CircuitTraffic = { edge: 'c', status: 'ok', aToZ: 5e9, zToA: 1e9, capacityAtoZ: 10e9, capacityZtoA: 10e9, ends: { a: true, z: true } };
  const paths = (markup: string) => [...markup.matchAll(/<g class="traffic (aToZ|zToA)"><path d="([^"]+)"/g)].map((m) => [m[1], m[2]]);

  it('cuts the circuit at its middle by length; the half at A runs from A', () => {
    // An L: 30 along x, then 10 down; the middle is at 20 along.
    const { markup, labels } = halfEdgeMarkup('c', [[0, 0], [30, 0], [30, 10]], true, t, bands, 2);
    assert.deepEqual(paths(markup), [['aToZ', 'M0 0L20 0'], ['zToA', 'M30 10L30 0L20 0']]);
    // The rate is the label (its colour says the utilisation).
    assert.deepEqual(labels.map((l) => l.text), ['5.0G', '1.0G']);
  });

  it('puts A\'s half at the end of the points when they run from Z', () => {
    const { markup } = halfEdgeMarkup('c', [[0, 0], [10, 0]], false, t, bands, 2);
    assert.deepEqual(paths(markup), [['aToZ', 'M10 0L5 0'], ['zToA', 'M0 0L5 0']]);
  });

  it('marks a down circuit with a cross and no arrows, and says no data without a label', () => {
    const down = halfEdgeMarkup('c', [[0, 0], [10, 0]], true, { ...t, status: 'down' }, bands, 2).markup;
    assert.ok(down.includes('class="down-mark"') && !down.includes('<polygon'));
    const none = halfEdgeMarkup('c', [[0, 0], [10, 0]], true, { ...t, status: 'nodata', aToZ: undefined, zToA: undefined }, bands, 2);
    assert.deepEqual(none.labels, []);
    assert.ok(none.markup.includes(`stroke="${STATE_COLORS.nodata}"`));
  });
});
