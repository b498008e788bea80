// The tabs of an xlsx workbook and the part each one's cells are in: names
// and order from xl/workbook.xml (`<sheet name r:id>`), parts from its
// relationships (xl/_rels/workbook.xml.rels: `Id` to `Target`, relative to
// xl/ or absolute as openpyxl writes them). Both parts are small: each is
// read whole, at most MAX_INDEX_BYTES, and parsed by xmldom with any DOCTYPE
// refused first (no entities to expand). A tab whose part is absent or not a
// worksheet (a chart sheet, a dangling relationship) has no cells: left out.
import { DOMParser, type Element } from '@xmldom/xmldom';
import type { Entry, ZipFile } from 'yauzl';
import { datasourceUnavailable } from '../../errors.ts';

/** Far above a real workbook's index (a few kilobytes), far below harm. */
const MAX_INDEX_BYTES = 4 * 1024 * 1024;
const RELATIONSHIPS_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

export interface XlsxTab {
  name: string;
  part: Entry;
}

async function readPart(zip: ZipFile, entry: Entry, label: string): Promise<Element> {
  if (entry.uncompressedSize > MAX_INDEX_BYTES) {
    throw datasourceUnavailable(`${label}: ${entry.fileName} is larger than the ${MAX_INDEX_BYTES} bytes a workbook's index may be`);
  }
  const chunks: Buffer[] = [];
  for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8').replace(/^\uFEFF/, '');
  if (/<!DOCTYPE/i.test(text)) throw datasourceUnavailable(`${label}: ${entry.fileName} has a DOCTYPE, which no workbook needs`);
  const parser = new DOMParser({
    onError: (level: string, message: string) => {
      if (level !== 'warning') throw new Error(`${entry.fileName} is not well-formed XML (${String(message).split('\n')[0].slice(0, 120)})`);
    },
  });
  const root = parser.parseFromString(text, 'text/xml').documentElement;
  if (!root) throw new Error(`${entry.fileName} is empty`);
  return root;
}

/** A relationship target as a zip path. */
const partPath = (target: string) => (target.startsWith('/') ? target.slice(1) : `xl/${target}`);
const isWorksheet = (path: string) => /^xl\/worksheets\/[^/]+\.xml$/.test(path);

/** The workbook's tabs that hold cells, in the workbook's order. */
export async function workbookTabs(zip: ZipFile, parts: ReadonlyMap<string, Entry>, label: string): Promise<XlsxTab[]> {
  const relsEntry = parts.get('xl/_rels/workbook.xml.rels');
  const bookEntry = parts.get('xl/workbook.xml');
  if (!relsEntry || !bookEntry) return [];
  const targets = new Map<string, string>();
  for (const rel of Array.from((await readPart(zip, relsEntry, label)).getElementsByTagNameNS('*', 'Relationship'))) {
    targets.set(rel.getAttribute('Id') ?? '', rel.getAttribute('Target') ?? '');
  }
  const tabs: XlsxTab[] = [];
  for (const sheet of Array.from((await readPart(zip, bookEntry, label)).getElementsByTagNameNS('*', 'sheet'))) {
    const target = targets.get(sheet.getAttributeNS(RELATIONSHIPS_NS, 'id') ?? '');
    const path = target === undefined ? undefined : partPath(target);
    const part = path && isWorksheet(path) ? parts.get(path) : undefined;
    if (part) tabs.push({ name: sheet.getAttribute('name') ?? '', part });
  }
  return tabs;
}
