// A parsed file: its raw tabs turned into edge sheets (tab order kept), with
// the workbook's lookup tab (Nodes, Sites or Locations) as their shared
// lookup. A file without any edge sheet is 422 (it is there, but wrong), with a message that
// says what was found instead; it never quotes the file's cells, since a
// file that cannot be used may be anything (the listing is public: docs/api.md, Datasources).
import { validationFailed } from '../../errors.ts';
import { ACCEPTED_END_HEADERS } from './header.ts';
import { findLookupTab, readNodes } from './nodes.ts';
import { cellAt, headerIndex, type RawTab } from './raw.ts';
import { buildEdgeTab, type EdgeTab } from './records.ts';

export interface ParsedBook {
  /** Edge sheets by tab name, in tab order (a Map: tab names are file data). */
  tabs: Map<string, EdgeTab>;
}

export async function buildBook(raw: RawTab[], label: string): Promise<ParsedBook> {
  // A lookup tab serves the other tabs of its workbook; a file of one tab (every
  // CSV, whose tab is named after the file) has none, so `nodes.csv` is circuits.
  const nodesTab = raw.length > 1 ? findLookupTab(raw) : undefined;
  const nodes = nodesTab ? await readNodes(nodesTab) : null;
  const tabs = new Map<string, EdgeTab>();
  for (const tab of raw) {
    if (tab === nodesTab || tabs.has(tab.name)) continue;
    const edges = await buildEdgeTab(tab, nodes);
    if (edges) tabs.set(tab.name, edges);
  }
  if (tabs.size === 0) {
    const header = raw.length === 1 ? raw[0].rows[headerIndex(raw[0])] ?? [] : [];
    const cells = header.filter((_, i) => cellAt(header, i) !== '').length;
    const found = raw.length === 1
      ? (cells ? `its first row has ${cells} filled cell${cells === 1 ? '' : 's'}, none of them a source or destination header` : 'it is empty')
      : `tabs: ${raw.map((s) => s.name).join(', ') || '(none)'}`;
    throw validationFailed(`${label} has no sheet with source and destination columns (${found}); ` +
      `circuit ends are read from ${ACCEPTED_END_HEADERS}`);
  }
  return { tabs };
}
