// The spreadsheet folder as a catalog of files, each parsed once per version.
// A file's identity is device, inode, size, mtime and ctime (nanoseconds):
// every call stats the file and a changed identity means a new parse, so
// files that appear, change or disappear are seen without a restart or a
// watcher. Failures are cached too (a zip bomb is refused once, not on every
// request). Parses run one at a time, so several large files never sit in
// memory half-parsed together.
// The folder is a boundary: a file is used only when its real path (symbolic
// links resolved) is inside the folder's real path, so a link to /etc/passwd
// or into another folder is not listed, not read and not named. Nor is a
// hard link (a file with more than one name: the other may be anywhere on the
// disk) or anything that is not a regular file (a FIFO, a device).
import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { datasourceUnavailable, isServiceError } from '../../errors.ts';
import { limitName, plainReason, type RawTab, type SheetLimits } from './raw.ts';
import { readCsv } from './read-csv.ts';
import { readXlsx } from './read-xlsx.ts';
import { buildBook, type ParsedBook } from './workbook.ts';

export interface SheetFile {
  /** File name without extension: the endpoint's sheet_id. */
  fileId: string;
  /** File name with extension, as shown in messages (never the full path). */
  fileName: string;
  kind: 'xlsx' | 'csv';
  modified: Date;
  /** Real path of the file (inside the folder); internal, never shown. */
  path: string;
}

/**
 * `content`: the file was read and is not a usable sheet (422); otherwise it could not be read (503).
 * `raw`: its tabs as read, for queries that name their own circuit-end columns (query.columns).
 */
export type Loaded = { file: SheetFile; book: ParsedBook; raw: RawTab[]; error?: undefined }
  | { file: SheetFile; book?: undefined; raw?: RawTab[]; error: string; content: boolean };

interface CacheEntry {
  identity: string;
  loaded: Promise<Loaded>;
}

const KINDS: Record<string, SheetFile['kind']> = { '.xlsx': 'xlsx', '.csv': 'csv' };

export function createCatalog(limits: SheetLimits) {
  const dir = limits.dir;
  const cache = new Map<string, CacheEntry>();
  let queue: Promise<unknown> = Promise.resolve();

  /** Sheet files in the folder by sheet_id; an xlsx wins over a csv of the same name. */
  async function scan(): Promise<Map<string, SheetFile>> {
    let names: string[];
    let realDir: string;
    try {
      realDir = await realpath(dir);
      names = (await readdir(realDir)).sort();
    } catch {
      return new Map();
    }
    const found = new Map<string, SheetFile>();
    for (const fileName of names) {
      const ext = path.extname(fileName);
      const kind = KINDS[ext.toLowerCase()];
      // Dot files and Excel's "~$name.xlsx" lock files are not spreadsheets.
      if (!kind || fileName.startsWith('.') || fileName.startsWith('~$')) continue;
      const fileId = fileName.slice(0, -ext.length);
      if (fileId === '' || (found.get(fileId)?.kind === 'xlsx')) continue;
      const real = await realInside(realDir, fileName);
      if (real) found.set(fileId, { fileId, fileName, kind, modified: new Date(0), path: real });
    }
    const present = new Set([...found.values()].map((f) => f.fileName));
    for (const name of [...cache.keys()]) if (!present.has(name)) cache.delete(name);
    return found;
  }

  /** Parses the file (or returns the cached parse of this very version); undefined when it is gone. */
  async function load(file: SheetFile): Promise<Loaded | undefined> {
    const full = file.path;
    let identity: string;
    let size: bigint;
    try {
      // lstat: the real path found by scan() is no link; one that has become a link since is not followed.
      const s = await lstat(full, { bigint: true });
      if (!s.isFile() || s.nlink > 1n) return undefined;
      identity = `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
      size = s.size;
      file = { ...file, modified: new Date(Number(s.mtimeMs)) };
    } catch {
      cache.delete(file.fileName);
      return undefined;
    }
    const cached = cache.get(file.fileName);
    if (cached?.identity === identity) return cached.loaded;
    const loaded = enqueue(() => parse(full, file, size));
    cache.set(file.fileName, { identity, loaded });
    return loaded;
  }

  async function parse(full: string, file: SheetFile, size: bigint): Promise<Loaded> {
    let raw: RawTab[] | undefined;
    try {
      if (size > BigInt(limits.maxFileBytes)) {
        throw datasourceUnavailable(`${file.fileName} is larger than ${limits.maxFileBytes} bytes (limit ${limitName('maxFileBytes')})`);
      }
      raw = file.kind === 'xlsx'
        ? await readXlsx(full, file.fileName, limits)
        : await readCsv(full, file.fileName, file.fileId, limits);
      return { file, book: await buildBook(raw, file.fileName), raw };
    } catch (e) {
      // What the readers refuse is the file's content (a format, a limit, no edge sheet); anything else is reading it.
      if (isServiceError(e) && !(e.cause instanceof Error && 'code' in e.cause)) return { file, error: e.message, content: true, raw };
      return { file, error: `${file.fileName} cannot be read: ${(e as NodeJS.ErrnoException).code ?? plainReason(e, 'unexpected error')}`, content: false };
    }
  }

  /** The real path of `fileName` in the folder when it stays inside the folder; undefined otherwise (or when gone). */
  async function realInside(realDir: string, fileName: string): Promise<string | undefined> {
    let real: string;
    try {
      real = await realpath(path.join(realDir, fileName));
    } catch {
      return undefined; // a dangling link, or gone meanwhile
    }
    const rel = path.relative(realDir, real);
    if (rel === '' || rel.startsWith(`..${path.sep}`) || rel === '..' || path.isAbsolute(rel)) return undefined;
    try {
      const s = await stat(real);
      return s.isFile() && s.nlink === 1 ? real : undefined;
    } catch {
      return undefined;
    }
  }

  function enqueue<T>(task: () => Promise<T>): Promise<T> {
    const next = queue.then(task, task);
    queue = next.catch(() => undefined);
    return next;
  }

  return { dir, scan, load, clear: () => cache.clear() };
}

