// Small hand-made record sets for the render tests.
import type { EdgeRecord, CircuitEnd } from '../../datasources/types.ts';

export const ep = (name: string, lat?: number, lng?: number, extra: Record<string, unknown> = {}): CircuitEnd => ({
  name,
  ...(lat === undefined ? {} : { latitude: lat }),
  ...(lng === undefined ? {} : { longitude: lng }),
  ...extra,
});

export function rec(id: string, name: string, a: CircuitEnd, b: CircuitEnd, extra: Record<string, unknown> = {}): EdgeRecord {
  return { id, name, source: a.name, destination: b.name, endpoints: [a, b], ...extra };
}

/** Three sites; two routers at SEA, one link SEA1-DEN duplicated (parallel circuits). */
export function backbone(): EdgeRecord[] {
  const sea1 = () => ep('SEA1', 47.6, -122.3, { site: 'SEA', region: 'west', vendor: 'x' });
  const sea2 = () => ep('SEA2', 47.6, -122.3, { site: 'SEA', region: 'west', vendor: 'x' });
  const den = () => ep('DEN1', 39.7, -105.0, { site: 'DEN', region: 'west', vendor: 'y' });
  const chi = () => ep('CHI1', 41.9, -87.6, { site: 'CHI', region: 'east', vendor: 'y' });
  return [
    rec('1', 'sea1-den-a', sea1(), den(), { capacity: '100' }),
    rec('2', 'sea1-den-b', den(), sea1(), { capacity: 100 }),
    rec('3', 'sea2-den', sea2(), den()),
    rec('4', 'den-chi', den(), chi(), { circuit_speed: 400 }),
  ];
}
