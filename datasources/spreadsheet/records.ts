// Turns one raw edge tab into records `{id, name, source, destination,
// …metadata, endpoints: [source, destination]}` (DESIGN: Datasources), joined
// with the Nodes lookup and the row's own `source_*`/`destination_*` cells.
// Rows that cannot be used are reported with sheet and row number.
import type { EdgeRecord, Endpoint, RowProblem } from '../types.ts';
import { coordinatePairError, isCoordinateField, parseCoordinate, setField } from './fields.ts';
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
  const sourceEnd = endpointBuilder(fromSource, nodes);
  const destinationEnd = endpointBuilder(fromDestination, nodes);
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
    const record = { id: '', name: '', source, destination } as EdgeRecord;
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
  return (target: Record<string, unknown>, cells: string[]) => {
    for (let i = 0; i < keys.length; i++) {
      const at = single[i];
      let value: string | string[];
      if (at >= 0) {
        value = cells[at] ?? '';
        if (keepFilled && value === '' && Object.hasOwn(target, keys[i])) continue;
      } else {
        value = [];
        for (const index of fields[i].indexes) if (cells[index]) value.push(cells[index]);
      }
      setField(target, keys[i], value);
    }
  };
}

/**
 * Builds one side's endpoint: Nodes-tab fields first, then the row's own
 * `source_*`/`destination_*` cells, which win when filled. A bad or half
 * coordinate gives an error message instead.
 */
function endpointBuilder(fields: FieldPlan[], nodes: NodeLookup | null) {
  const lat = fields.find((f) => f.key === 'latitude')?.indexes[0] ?? -1;
  const lng = fields.find((f) => f.key === 'longitude')?.indexes[0] ?? -1;
  const fillOthers = filler(fields.filter((f) => !isCoordinateField(f.key)), true);
  const byName = nodes && nodes.byName.size > 0 ? nodes.byName : null;
  return (name: string, cells: string[]): Endpoint | string => {
    const end: Endpoint = { name };
    const node = byName?.get(name);
    if (node) for (const key of Object.keys(node)) setField(end, key, node[key]);
    fillOthers(end, cells);
    if (lat >= 0 && cells[lat]) {
      const value = parseCoordinate('latitude', cells[lat]);
      if (typeof value === 'string') return `${JSON.stringify(name)}: ${value}`;
      end.latitude = value;
    }
    if (lng >= 0 && cells[lng]) {
      const value = parseCoordinate('longitude', cells[lng]);
      if (typeof value === 'string') return `${JSON.stringify(name)}: ${value}`;
      end.longitude = value;
    }
    const pair = coordinatePairError(end);
    return pair ? `${JSON.stringify(name)} has ${pair}` : end;
  };
}

const unique = (list: string[]) => [...new Set(list)];
