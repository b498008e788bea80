// Opens an xlsx (a zip) with yauzl and refuses it before anything is inflated
// when its central directory announces more than the limits allow: too many
// entries, parts that together inflate past maxUncompressedBytes, or a large
// part whose inflate ratio is past maxInflateRatio. yauzl then enforces those
// announced sizes while inflating (validateEntrySizes), so a zip that lies in
// its directory fails on the first byte too many instead of filling memory.
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { datasourceUnavailable } from '../../errors.ts';
import { limitName, plainReason, type SheetLimits } from './raw.ts';

/** More entries than any real workbook has; guards the directory walk itself. */
const MAX_ZIP_ENTRIES = 10_000;
/** Parts smaller than this cannot hurt whatever their ratio (tiny XML compresses well). */
const RATIO_FLOOR_BYTES = 1024 * 1024;

/** Parts the reader inflates; everything else (images, themes, …) is never read. */
const isWantedPart = (name: string) =>
  name === 'xl/workbook.xml' || name === 'xl/_rels/workbook.xml.rels' || name === 'xl/sharedStrings.xml' ||
  name === 'xl/styles.xml' || /^xl\/worksheets\/[^/]+\.xml$/.test(name);

export interface GuardedZip {
  zip: ZipFile;
  /** Wanted parts by path (a Map: part names are file data, never object keys). */
  parts: Map<string, Entry>;
}

export async function openGuardedZip(file: string, label: string, limits: SheetLimits): Promise<GuardedZip> {
  let zip: ZipFile;
  try {
    zip = await yauzl.openPromise(file, { lazyEntries: true, autoClose: false, validateEntrySizes: true });
  } catch (e) {
    throw datasourceUnavailable(`${label} is not a readable xlsx workbook: ${plainReason(e, 'damaged or not an xlsx file')}`);
  }
  try {
    if (zip.entryCount > MAX_ZIP_ENTRIES) {
      throw datasourceUnavailable(`${label} has ${zip.entryCount} zip entries, more than the ${MAX_ZIP_ENTRIES} a workbook may have`);
    }
    const parts = new Map<string, Entry>();
    let total = 0;
    for await (const entry of zip.eachEntry()) {
      if (!isWantedPart(entry.fileName)) continue;
      if (parts.has(entry.fileName)) throw datasourceUnavailable(`${label} holds the part ${entry.fileName} twice`);
      if (entry.isEncrypted()) throw datasourceUnavailable(`${label} is encrypted`);
      if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
        throw datasourceUnavailable(`${label} uses an unsupported zip compression method (${entry.compressionMethod})`);
      }
      total += entry.uncompressedSize;
      if (total > limits.maxUncompressedBytes) {
        throw datasourceUnavailable(`${label} inflates to more than ${limits.maxUncompressedBytes} bytes ` +
          `(limit ${limitName('maxUncompressedBytes')})`);
      }
      const ratio = entry.uncompressedSize / Math.max(entry.compressedSize, 1);
      if (entry.uncompressedSize > RATIO_FLOOR_BYTES && ratio > limits.maxInflateRatio) {
        throw datasourceUnavailable(`${label}: part ${entry.fileName} inflates ${Math.round(ratio)}:1, ` +
          `more than ${limits.maxInflateRatio}:1 (limit ${limitName('maxInflateRatio')})`);
      }
      parts.set(entry.fileName, entry);
    }
    if (!parts.has('xl/workbook.xml')) throw datasourceUnavailable(`${label} is a zip file but not an xlsx workbook (no xl/workbook.xml)`);
    return { zip, parts };
  } catch (e) {
    zip.close();
    if ((e as { code?: string }).code === 'datasource_unavailable') throw e;
    throw datasourceUnavailable(`${label} is not a readable xlsx workbook: ${plainReason(e, 'damaged or not an xlsx file')}`);
  }
}
