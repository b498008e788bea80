// The lookup tab of a workbook (named `Nodes`, `Sites` or `Locations`): a
// table joined to edge rows by node name, giving each circuit end its latitude,
// longitude and any other columns. Coordinate headers may also be spelled
// lat, lon, lng or long (header.ts). Its rows are read ROWS_PER_TURN at a
// time with a turn of the event loop between (turns.ts).
import type { RowProblem } from '../types.ts';
import { isCoordinateField, parseCoordinate } from './fields.ts';
import { planHeader } from './header.ts';
import { cellAt, headerIndex, isEmptyRow, rowNumber, type RawTab } from './raw.ts';
import { inTurns, ROWS_PER_TURN } from './turns.ts';

/** One node of the lookup: its coordinates (both or neither) and its other fields in header order. */
interface NodeInfo {
  latitude?: number;
  longitude?: number;
  fields: [string, string | string[]][];
}

export interface NodeLookup {
  /** The tab's name as the workbook spells it, for messages. */
  tab: string;
  /** Nodes by name (a Map: node names are file data). */
  byName: Map<string, NodeInfo>;
  /** Field names the lookup gives circuit ends (name excluded), in header order. */
  fields: string[];
  problems: RowProblem[];
}

/** Names a lookup tab may have (any case), in order of preference when a workbook has several. */
const LOOKUP_TABS = ['nodes', 'sites', 'locations'] as const;

/** The workbook's lookup tab: the first of LOOKUP_TABS it has; undefined when none. */
export function findLookupTab(tabs: readonly RawTab[]): RawTab | undefined {
  for (const wanted of LOOKUP_TABS) {
    const tab = tabs.find((s) => s.name.trim().toLowerCase() === wanted);
    if (tab) return tab;
  }
  return undefined;
}

export async function readNodes(sheet: RawTab): Promise<NodeLookup> {
  const lookup: NodeLookup = { tab: sheet.name, byName: new Map(), fields: [], problems: [] };
  const start = headerIndex(sheet);
  const problem = (row: number, message: string) => lookup.problems.push({ sheet: sheet.name, row, message });
  if (start < 0) return lookup;
  const plan = planHeader(sheet.rows[start], false);
  for (const note of plan.notes) problem(rowNumber(sheet, start), note);
  const nameField = plan.fields.find((f) => f.key === 'name');
  if (!nameField) {
    problem(rowNumber(sheet, start), `the ${JSON.stringify(sheet.name)} tab has no "name" column, so no node gets coordinates from it`);
    return lookup;
  }
  const fields = plan.fields.filter((f) => f !== nameField);
  lookup.fields = fields.map((f) => f.key);
  const firstRow = new Map<string, number>();
  await inTurns(start + 1, sheet.rows.length, ROWS_PER_TURN, (from, to) => {
    for (let r = from; r < to; r++) {
      const cells = sheet.rows[r];
      const number = rowNumber(sheet, r);
      const name = cellAt(cells, nameField.indexes[0]);
      if (name === '') {
        if (!isEmptyRow(cells)) problem(number, 'missing name; row skipped');
        continue;
      }
      const seen = firstRow.get(name);
      if (seen !== undefined) {
        problem(number, `node ${JSON.stringify(name)} is already listed at row ${seen}; row skipped`);
        continue;
      }
      const node: NodeInfo = { fields: [] };
      let error = '';
      for (const field of fields) {
        if (field.indexes.length > 1) {
          node.fields.push([field.key, field.indexes.map((i) => cellAt(cells, i)).filter((v) => v !== '')]);
          continue;
        }
        const text = cellAt(cells, field.indexes[0]);
        if (!isCoordinateField(field.key)) node.fields.push([field.key, text]);
        else if (text !== '') {
          const value = parseCoordinate(field.key, text);
          if (typeof value === 'string') error ||= value;
          else node[field.key] = value;
        }
      }
      if (!error && (node.latitude === undefined) !== (node.longitude === undefined)) {
        error = node.latitude === undefined ? 'a longitude without a latitude' : 'a latitude without a longitude';
      }
      if (error) {
        problem(number, `node ${JSON.stringify(name)}: ${error}; row skipped`);
        continue;
      }
      firstRow.set(name, number);
      lookup.byName.set(name, node);
    }
  });
  return lookup;
}
