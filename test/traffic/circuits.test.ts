// The binding over a circuit's record and the direction rule
// (traffic/circuits.ts), without a source: readings given by hand.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TopologyEdge } from '../../render/types.ts';
import { bindCircuits, circuitTraffic, missingFields } from '../../traffic/circuits.ts';
import { interfaceKey, type Reading } from '../../traffic/types.ts';

const edge = (meta: Record<string, unknown>): TopologyEdge => ({ name: 'c', coordinates: [[0, 0], [1, 1]], meta: { endpoint_identifiers: { names: ['A', 'Z'] }, ...meta } });
const binding = { source: 's', a: { instance: '{A_Router}', ifName: '{a_port}' }, z: { instance: '{z_router}', ifName: '{z_port}' }, capacity: '{cap} Gbps' };
const readings = (entries: [string, string, Reading][]) => new Map(entries.map(([instance, ifName, r]) => [interfaceKey({ instance, ifName }), r]));

describe('bindCircuits', () => {
  it('fills templates from the record (header case ignored), a list as LAG members, an empty cell unbinding its end', () => {
    const [c] = bindCircuits(binding, [edge({ a_router: 'r1', a_port: ['p1', 'p2'], z_router: 'r2', z_port: '', cap: ['10', '10'] })]);
    assert.deepEqual(c.a, [{ instance: 'r1', ifName: 'p1' }, { instance: 'r1', ifName: 'p2' }]);
    assert.equal(c.z, null);
    assert.equal(c.capacityAtoZ, 20e9);
    assert.deepEqual([c.src, c.dst], ['A', 'Z']);
  });

  it('leaves out a circuit with no end bound, and reads an empty capacity as unknown', () => {
    assert.deepEqual(bindCircuits(binding, [edge({ a_router: '', z_router: '' })]), []);
    assert.equal(bindCircuits(binding, [edge({ a_router: 'r', a_port: 'p' })])[0].capacityAtoZ, undefined);
  });

  it('names the fields no record has', () => {
    assert.deepEqual(missingFields(binding, [{ a_router: 'r', A_PORT: 'p', z_router: 'r', z_port: 'p' }]), [{ path: 'capacity', field: 'cap' }]);
  });
});

describe('circuitTraffic: the direction rule and the states', () => {
  const both = bindCircuits(binding, [edge({ a_router: 'a', a_port: 'p', z_router: 'z', z_port: 'p', cap: '10' })])[0];
  const at = 1000;
  const cases: [string, [string, string, Reading][], Partial<ReturnType<typeof circuitTraffic>>][] = [
    ['A→Z the larger of A out and Z in; Z→A of Z out and A in', [['a', 'p', { outBps: 4, inBps: 1, seenAt: at }], ['z', 'p', { outBps: 2, inBps: 5, seenAt: at }]], { aToZ: 5, zToA: 2, status: 'ok' }],
    ['one end read: that end alone', [['a', 'p', { outBps: 4, inBps: 1, seenAt: at }]], { aToZ: 4, zToA: 1, status: 'ok' }],
    ['down when an end reports down', [['a', 'p', { outBps: 0, inBps: 0, oper: 2, seenAt: at }], ['z', 'p', { outBps: 0, inBps: 0, oper: 1, seenAt: at }]], { status: 'down' }],
    ['stale when the newest sample is older than two steps', [['a', 'p', { outBps: 1, inBps: 1, seenAt: at - 121 }]], { status: 'stale' }],
    ['no data when nothing was read', [], { status: 'nodata', aToZ: undefined }],
    ['the record\'s capacity over the ends\' speeds', [['a', 'p', { outBps: 1, speedBps: 10e9, seenAt: at }], ['z', 'p', { inBps: 1, speedBps: 1e9, seenAt: at }]], { capacityAtoZ: 10e9 }],
  ];
  for (const [what, given, expected] of cases) {
    it(what, () => {
      const got = circuitTraffic(both, readings(given), at, 60);
      for (const [k, v] of Object.entries(expected)) assert.deepEqual(got[k as keyof typeof got], v, k);
    });
  }

  it('uses the ends\' speed when the capacity cell is empty', () => {
    const [c] = bindCircuits(binding, [edge({ a_router: 'a', a_port: 'p', z_router: 'z', z_port: 'p' })]);
    const t = circuitTraffic(c, readings([['a', 'p', { outBps: 1, speedBps: 10e9, seenAt: at }], ['z', 'p', { inBps: 1, speedBps: 1e9, seenAt: at }]]), at, 60);
    assert.deepEqual([t.capacityAtoZ, t.capacityZtoA], [1e9, 1e9]);
  });
});
