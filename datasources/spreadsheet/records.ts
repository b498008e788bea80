// Turns one raw edge tab into records `{id, name, source, destination,
// …metadata, endpoints: [source, destination]}` (docs/api.md: Datasets), joined
// with the Nodes lookup and the row's own `source_*`/`destination_*` cells.
// Every row is checked when the file is read (rows that cannot be used are
// reported with sheet and row number); a record object is built the first
// time a query needs it and then kept, so a filtered query builds only the
// records it returns, and filters read row columns straight from the cells.
// The rows are checked ROWS_PER_TURN at a time with a turn of the event loop
// between (turns.ts): a large sheet does not hold up other requests.
import type { EdgeRecord, CircuitEnd, RowProblem } from '../types.ts';
import { circuitEndSide } from './circuit-ends.ts';
import { fieldValue, filler, setField } from './fields.ts';
import { ACCEPTED_END_HEADERS, planHeader } from './header.ts';
import type { NodeLookup } from './nodes.ts';
import { cellAt, headerIndex, isEmptyRow, rowNumber, type RawTab } from './raw.ts';
import { inTurns, ROWS_PER_TURN } from './turns.ts';

/** Problems kept per sheet; the rest are counted (problemCount). */
const MAX_PROBLEMS = 200;

export interface EdgeTab {
  name: string;
  /** Usable rows, that is records. */
  recordCount: number;
  /** Record `index` (0 ≤ index < recordCount), built on first use and then shared: callers never change it. */
  record(index: number): EdgeRecord;
  /** A row column by record index (as the records have it), read from the cells without building records. */
  rowColumn(key: string): (string | string[])[];
  problems: RowProblem[];
  /** All problems, also those past MAX_PROBLEMS. */
  problemCount: number;
  /** Data rows with any text (header and empty rows excluded). */
  rowCount: number;
  /** Row columns a filter may name, lower case, in header order. */
  rowColumns: string[];
  /** Circuit-end fields a filter may name as `endpoints.<field>`. */
  endColumns: string[];
  /** Set when the tab has one of source/destination but not both. */
  error?: string;
}

/** null when the tab has neither a source nor a destination column: not an edge sheet. */
export async function buildEdgeTab(sheet: RawTab, nodes: NodeLookup | null): Promise<EdgeTab | null> {
  const rows = sheet.rows;
  const start = headerIndex(sheet);
  if (start < 0) return null;
  const plan = planHeader(rows[start]);
  if (plan.source < 0 && plan.destination < 0) return null;
  const own = plan.fields.filter((f) => f.target === 'record');
  const fromSource = plan.fields.filter((f) => f.target === 'source');
  const fromDestination = plan.fields.filter((f) => f.target === 'destination');
  const endColumns = unique(['name', ...(nodes?.fields ?? []), ...fromSource.map((f) => f.key), ...fromDestination.map((f) => f.key)]);
  const usable: number[] = [];
  let built: (EdgeRecord | undefined)[] = [];
  const out: EdgeTab = {
    name: sheet.name, recordCount: 0, problems: [], problemCount: 0, rowCount: 0,
    rowColumns: unique(['id', 'name', 'source', 'destination', ...own.map((f) => f.key)]), endColumns,
    record: (index) => (built[index] ??= makeRecord(usable[index])),
    rowColumn: (key) => rowColumn(key),
  };
  const report = (p: RowProblem) => {
    if (++out.problemCount <= MAX_PROBLEMS) out.problems.push(p);
  };
  const problem = (row: number, message: string) => report({ sheet: sheet.name, row, message });
  for (const p of nodes?.problems ?? []) report(p);
  for (const note of plan.notes) problem(rowNumber(sheet, start), note);
  if (plan.source < 0 || plan.destination < 0) {
    out.error = `sheet ${JSON.stringify(sheet.name)} has no ${plan.source < 0 ? 'source' : 'destination'} column; ` +
      `circuit ends are read from ${ACCEPTED_END_HEADERS}`;
    return out;
  }

  const byNode = new Map<string, CircuitEnd>();
  const sides = [circuitEndSide(fromSource, nodes, byNode), circuitEndSide(fromDestination, nodes, byNode)] as const;
  const expectsCoordinates = endColumns.includes('latitude');
  const lookupTab = nodes ? `the ${JSON.stringify(nodes.tab)} tab` : 'a Nodes tab';
  const noPlace = (name: string) => `node ${JSON.stringify(name)} has no coordinates (not in ${lookupTab}, no ` +
    'latitude/longitude cells in the row); kept without a position';
  await inTurns(start + 1, rows.length, ROWS_PER_TURN, (from, to) => {
    for (let r = from; r < to; r++) {
      const cells = rows[r];
      const source = cellAt(cells, plan.source);
      const destination = cellAt(cells, plan.destination);
      if ((source === '' || destination === '') && isEmptyRow(cells)) continue;
      out.rowCount++;
      if (source === '' || destination === '') {
        problem(rowNumber(sheet, r), `missing ${source === '' ? 'source' : 'destination'}; row skipped`);
        continue;
      }
      const a = sides[0].check(source, cells);
      const b = sides[1].check(destination, cells);
      if (typeof a === 'string' || typeof b === 'string') {
        problem(rowNumber(sheet, r), `${typeof a === 'string' ? `source ${a}` : `destination ${b}`}; row skipped`);
        continue;
      }
      if (expectsCoordinates && !a) problem(rowNumber(sheet, r), noPlace(source));
      if (expectsCoordinates && !b) problem(rowNumber(sheet, r), noPlace(destination));
      usable.push(r);
    }
  });
  out.recordCount = usable.length;
  built = new Array(usable.length); // sized now: filling a growing empty array out of order makes it a slow sparse one

  // Every record has the same keys in the same order: copying one shaped
  // object is much cheaper than growing each record key by key.
  const shape: Record<string, unknown> = { id: '', name: '', source: '', destination: '' };
  for (const field of own) setField(shape, field.key, '');
  shape.endpoints = null;
  const fillRecord = filler(own);
  const makeRecord = (r: number): EdgeRecord => {
    const cells = rows[r];
    const source = cellAt(cells, plan.source);
    const destination = cellAt(cells, plan.destination);
    const record = { ...shape } as EdgeRecord;
    record.source = source;
    record.destination = destination;
    fillRecord(record, cells);
    if (record.id === '') record.id = `row-${rowNumber(sheet, r)}`;
    if (record.name === '') record.name = `${source}--${destination}`;
    record.endpoints = [sides[0].build(source, cells), sides[1].build(destination, cells)];
    return record;
  };
  const ownByKey = new Map(own.map((f) => [f.key, f]));
  const rowColumn = (key: string): (string | string[])[] => {
    const values = new Array<string | string[]>(usable.length);
    const field = ownByKey.get(key);
    const at = key === 'source' || key === 'destination' ? plan[key] : field?.indexes.length === 1 ? field.indexes[0] : -1;
    if (at >= 0) for (let i = 0; i < usable.length; i++) values[i] = cellAt(rows[usable[i]], at);
    else for (let i = 0; i < usable.length; i++) values[i] = field ? fieldValue(field, rows[usable[i]]) : '';
    if (key === 'id' || key === 'name') {
      for (let i = 0; i < usable.length; i++) {
        if (values[i] !== '') continue;
        const r = usable[i];
        values[i] = key === 'id' ? `row-${rowNumber(sheet, r)}` : `${cellAt(rows[r], plan.source)}--${cellAt(rows[r], plan.destination)}`;
      }
    }
    return values;
  };
  return out;
}

const unique = (list: string[]) => [...new Set(list)];
