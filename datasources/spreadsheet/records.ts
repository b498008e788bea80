// Turns one raw edge tab into records `{id, name, source, destination,
// …metadata, endpoints: [source, destination]}` (DESIGN: Datasources), joined
// with the Nodes lookup and the row's own `source_*`/`destination_*` cells.
// Rows that cannot be used are reported with sheet and row number.
import type { EdgeRecord, Endpoint, RowProblem } from '../types.ts';
import { isCoordinateField, parseCoordinate, setField } from './fields.ts';
import { planHeader, type FieldPlan } from './header.ts';
import type { NodeLookup } from './nodes.ts';
import type { RawSheet } from './raw.ts';

/** Problems kept per sheet; the rest are counted (problemCount). */
export const MAX_PROBLEMS = 200;

export interface EdgeSheet {
  name: string;
  records: EdgeRecord[];
  problems: RowProblem[];
  /** All problems, also those past MAX_PROBLEMS. */
  problemCount: number;
  /** Non-empty data rows (header excluded). */
  rowCount: number;
  /** Row columns a filter may name, lower case, in header order. */
  rowColumns: string[];
  /** Endpoint fields a filter may name as `endpoints.<field>`. */
  endpointColumns: string[];
  /** Set when the tab has one of source/destination but not both. */
  error?: string;
}

/** null when the tab has neither a source nor a destination column: not an edge sheet. */
export function buildEdgeSheet(sheet: RawSheet, nodes: NodeLookup | null): EdgeSheet | null {
  const rows = sheet.rows;
  const header = rows[0];
  if (!header) return null;
  const plan = planHeader(header.cells);
  if (plan.source < 0 && plan.destination < 0) return null;
  const own = plan.fields.filter((f) => f.target === 'record');
  const fromSource = plan.fields.filter((f) => f.target === 'source');
  const fromDestination = plan.fields.filter((f) => f.target === 'destination');
  const endpointColumns = unique(['name', ...(nodes?.fields ?? []), ...fromSource.map((f) => f.key), ...fromDestination.map((f) => f.key)]);
  const out: EdgeSheet = {
    name: sheet.name, records: [], problems: [], problemCount: 0, rowCount: rows.length - 1,
    rowColumns: unique(['id', 'name', 'source', 'destination', ...own.map((f) => f.key)]), endpointColumns,
  };
  const report = (p: RowProblem) => {
    if (++out.problemCount <= MAX_PROBLEMS) out.problems.push(p);
  };
  const problem = (row: number, message: string) => report({ sheet: sheet.name, row, message });
  for (const p of nodes?.problems ?? []) report(p);
  for (const note of plan.notes) problem(header.number, note);
  if (plan.source < 0 || plan.destination < 0) {
    out.error = `sheet ${JSON.stringify(sheet.name)} has no ${plan.source < 0 ? 'source' : 'destination'} column`;
    return out;
  }
  const fillRecord = filler(own);
  // Every record has the same keys in the same order: copying one shaped
  // object is much cheaper than growing each record key by key.
  const shape: Record<string, unknown> = { id: '', name: '', source: '', destination: '' };
  for (const field of own) setField(shape, field.key, '');
  shape.endpoints = null;
  // Without source_*/destination_* columns an endpoint depends on its name
  // only: one object per node serves every record that names it.
  const byNode = new Map<string, Endpoint>();
  const sourceEnd = endpointBuilder(fromSource, nodes, byNode);
  const destinationEnd = endpointBuilder(fromDestination, nodes, byNode);
  const expectsCoordinates = endpointColumns.includes('latitude');
  const missing = (row: number, end: Endpoint) => {
    if (expectsCoordinates && end.latitude === undefined) {
      problem(row, `node ${JSON.stringify(end.name)} has no coordinates (not in the Nodes tab, no ` +
        `latitude/longitude cells in the row); kept without a position`);
    }
  };
  for (let r = 1; r < rows.length; r++) {
    const { number, cells } = rows[r];
    const source = cells[plan.source] ?? '';
    const destination = cells[plan.destination] ?? '';
    if (source === '' || destination === '') {
      problem(number, `missing ${source === '' ? 'source' : 'destination'}; row skipped`);
      continue;
    }
    const a = sourceEnd(source, cells);
    const b = destinationEnd(destination, cells);
    if (typeof a === 'string' || typeof b === 'string') {
      problem(number, `${typeof a === 'string' ? `source ${a}` : `destination ${b}`}; row skipped`);
      continue;
    }
    missing(number, a);
    missing(number, b);
    const record = { ...shape } as EdgeRecord;
    record.source = source;
    record.destination = destination;
    fillRecord(record, cells);
    if (record.id === '') record.id = `row-${number}`;
    if (record.name === '') record.name = `${source}--${destination}`;
    record.endpoints = [a, b];
    out.records.push(record);
  }
  return out;
}

/** Copies the planned fields' cells onto an object; an empty single cell gives '' unless `keepFilled`. */
function filler(fields: FieldPlan[], keepFilled = false) {
  const keys = fields.map((f) => f.key);
  const single = fields.map((f) => (f.indexes.length === 1 ? f.indexes[0] : -1));
  // A header named __proto__ needs defineProperty; every other key a plain (faster) assignment.
  const put = keys.includes('__proto__') ? setField : (o: Record<string, unknown>, k: string, v: unknown) => { o[k] = v; };
  return (target: Record<string, unknown>, cells: string[]) => {
    for (let i = 0; i < keys.length; i++) {
      const at = single[i];
      let value: string | string[];
      if (at >= 0) {
        value = cells[at] ?? '';
        if (keepFilled && value === '' && Object.hasOwn(target, keys[i])) continue;
      } else {
        // Sized up front: a pushed-to empty array reserves room for 17 items.
        const indexes = fields[i].indexes;
        const list = new Array<string>(indexes.length);
        let n = 0;
        for (const index of indexes) if (cells[index]) list[n++] = cells[index];
        list.length = n;
        value = list;
      }
      put(target, keys[i], value);
    }
  };
}

/**
 * Builds one side's endpoint `{name, latitude, longitude, …}`: the row's own
 * `source_*`/`destination_*` cells win when filled, the Nodes tab gives the
 * rest. A bad or half coordinate gives an error message instead.
 */
function endpointBuilder(fields: FieldPlan[], nodes: NodeLookup | null, byNode: Map<string, Endpoint>) {
  const latAt = fields.find((f) => f.key === 'latitude')?.indexes[0] ?? -1;
  const lngAt = fields.find((f) => f.key === 'longitude')?.indexes[0] ?? -1;
  const fillOthers = filler(fields.filter((f) => !isCoordinateField(f.key)), true);
  const byName = nodes && nodes.byName.size > 0 ? nodes.byName : null;
  const build = (name: string, cells: string[]): Endpoint | string => {
    const node = byName?.get(name);
    let latitude = node?.latitude;
    let longitude = node?.longitude;
    if (latAt >= 0 && cells[latAt]) {
      const value = parseCoordinate('latitude', cells[latAt]);
      if (typeof value === 'string') return `${JSON.stringify(name)}: ${value}`;
      latitude = value;
    }
    if (lngAt >= 0 && cells[lngAt]) {
      const value = parseCoordinate('longitude', cells[lngAt]);
      if (typeof value === 'string') return `${JSON.stringify(name)}: ${value}`;
      longitude = value;
    }
    if ((latitude === undefined) !== (longitude === undefined)) {
      return `${JSON.stringify(name)} has a ${latitude === undefined ? 'longitude without a latitude' : 'latitude without a longitude'}`;
    }
    const end: Endpoint = latitude === undefined ? { name } : { name, latitude, longitude };
    if (node) for (const [key, value] of node.fields) setField(end, key, value);
    fillOthers(end, cells);
    return end;
  };
  if (fields.length > 0) return build;
  return (name: string, cells: string[]): Endpoint | string => {
    let end = byNode.get(name);
    if (!end) {
      const made = build(name, cells);
      if (typeof made === 'string') return made;
      byNode.set(name, (end = made));
    }
    return end;
  };
}

const unique = (list: string[]) => [...new Set(list)];
