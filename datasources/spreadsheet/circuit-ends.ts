// One side (source or destination) of the records of an edge sheet: checks
// that a row's circuit end is usable, and builds it as `{name, latitude,
// longitude, …}` when a record is needed. The row's own `source_*` /
// `destination_*` cells win when filled; the Nodes tab gives the rest.
import type { CircuitEnd } from '../types.ts';
import { filler, isCoordinateField, parseCoordinate, setField } from './fields.ts';
import type { FieldPlan } from './header.ts';
import type { NodeLookup } from './nodes.ts';
import { cellAt } from './raw.ts';

export interface Side {
  /** An error message, or whether the circuit end has coordinates. Allocates nothing. */
  check(name: string, cells: string[]): string | boolean;
  /** The circuit end of a row that passed check(). */
  build(name: string, cells: string[]): CircuitEnd;
}

/**
 * `byNode`: when the sheet has no columns for this side's circuit ends, a circuit end
 * depends on its name only, and one object per node serves every record.
 */
export function circuitEndSide(fields: FieldPlan[], nodes: NodeLookup | null, byNode: Map<string, CircuitEnd>): Side {
  const latAt = fields.find((f) => f.key === 'latitude')?.indexes[0] ?? -1;
  const lngAt = fields.find((f) => f.key === 'longitude')?.indexes[0] ?? -1;
  const fillOthers = filler(fields.filter((f) => !isCoordinateField(f.key)), true);
  const byName = nodes && nodes.byName.size > 0 ? nodes.byName : null;
  const at = { latitude: undefined as number | undefined, longitude: undefined as number | undefined };

  /** Fills `at` with the circuit end's coordinates; returns an error message or ''. */
  const locate = (name: string, cells: string[]): string => {
    const node = byName?.get(name);
    at.latitude = node?.latitude;
    at.longitude = node?.longitude;
    const latText = latAt >= 0 ? cellAt(cells, latAt) : '';
    if (latText) {
      const value = parseCoordinate('latitude', latText);
      if (typeof value === 'string') return `${JSON.stringify(name)}: ${value}`;
      at.latitude = value;
    }
    const lngText = lngAt >= 0 ? cellAt(cells, lngAt) : '';
    if (lngText) {
      const value = parseCoordinate('longitude', lngText);
      if (typeof value === 'string') return `${JSON.stringify(name)}: ${value}`;
      at.longitude = value;
    }
    if ((at.latitude === undefined) !== (at.longitude === undefined)) {
      return `${JSON.stringify(name)} has a ${at.latitude === undefined ? 'longitude without a latitude' : 'latitude without a longitude'}`;
    }
    return '';
  };

  const make = (name: string, cells: string[]): CircuitEnd => {
    locate(name, cells);
    const { latitude, longitude } = at;
    const end: CircuitEnd = latitude === undefined ? { name } : { name, latitude, longitude };
    const node = byName?.get(name);
    if (node) for (const [key, value] of node.fields) setField(end, key, value);
    fillOthers(end, cells);
    return end;
  };

  return {
    check: (name, cells) => locate(name, cells) || at.latitude !== undefined,
    build: fields.length > 0 ? make : (name, cells) => {
      let end = byNode.get(name);
      if (!end) byNode.set(name, (end = make(name, cells)));
      return end;
    },
  };
}
