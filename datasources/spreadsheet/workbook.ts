// A parsed file: its raw tabs turned into edge sheets (tab order kept), with
// the workbook's Nodes tab as their shared lookup. A file without any edge
// sheet is unavailable, with a message that says what was found instead.
import { datasourceUnavailable } from '../../errors.ts';
import { isNodesTab, readNodes } from './nodes.ts';
import { cellAt, headerIndex, type RawSheet } from './raw.ts';
import { buildEdgeSheet, type EdgeSheet } from './records.ts';

export interface ParsedBook {
  /** Edge sheets by tab name, in tab order (a Map: tab names are file data). */
  sheets: Map<string, EdgeSheet>;
}

export function buildBook(raw: RawSheet[], label: string): ParsedBook {
  // A Nodes tab serves the other tabs of its workbook; a file of one tab (every
  // CSV, whose tab is named after the file) has none, so `nodes.csv` is circuits.
  const nodesTab = raw.length > 1 ? raw.find((s) => isNodesTab(s.name)) : undefined;
  const nodes = nodesTab ? readNodes(nodesTab) : null;
  const sheets = new Map<string, EdgeSheet>();
  for (const tab of raw) {
    if (tab === nodesTab || sheets.has(tab.name)) continue;
    const sheet = buildEdgeSheet(tab, nodes);
    if (sheet) sheets.set(tab.name, sheet);
  }
  if (sheets.size === 0) {
    const header = raw.length === 1 ? raw[0].rows[headerIndex(raw[0])] ?? [] : [];
    const found = raw.length === 1
      ? `its header row: ${header.map((_, i) => cellAt(header, i)).filter(Boolean).join(', ') || '(empty)'}`
      : `tabs: ${raw.map((s) => s.name).join(', ') || '(none)'}`;
    throw datasourceUnavailable(`${label} has no sheet with source and destination columns (${found})`);
  }
  return { sheets };
}
