// What names the data of one sheet_id now, for the output cache: the folder's
// identity (inode, modification time: any file added, removed, renamed or
// relinked in it changes it) and the sheet file's identity (device, inode,
// size, modification and change times, as the catalog keys its parses).
// Asked on every cached request of a live output, so it costs two stat calls,
// synchronous (microseconds on a local disk, against tens of microseconds and
// a thread-pool round trip each for the asynchronous ones); the folder is
// scanned again (catalog.ts) only when its own identity changed.
import { statSync } from 'node:fs';
import type { createCatalog, SheetFile } from './catalog.ts';

// Times as float milliseconds, not bigint nanoseconds: half the cost, and still finer than a microsecond.
const identity = (p: string) => {
  const s = statSync(p, { throwIfNoEntry: false });
  return s && { file: s.isFile(), id: `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}` };
};

export function sheetFingerprint(catalog: ReturnType<typeof createCatalog>) {
  let last: { folder: string; files: Map<string, SheetFile> } | undefined;
  /** The fingerprint of `sheetId`'s data; undefined when no such sheet is there. */
  return async (sheetId: string): Promise<string | undefined> => {
    // Taken before the scan: a folder changed during it is seen as changed on the next call.
    const folder = identity(catalog.dir)?.id ?? 'none';
    if (last?.folder !== folder) last = { folder, files: await catalog.scan() };
    const file = last.files.get(sheetId);
    const found = file && identity(file.path);
    return file && found?.file ? `${file.fileName}:${found.id}` : undefined;
  };
}
