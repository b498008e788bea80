// The lowdb adapter for one document file, and the durable write under it.
// lowdb's own writer (steno) renames a temp file but never fsyncs, so a power
// cut can leave an empty or old file behind a write that was acknowledged.
// Here a write is: unique temp file in the same folder, the whole buffer
// written (short writes continued, checked), fsync of the file, close, rename
// over the target, fsync of the folder. Only then does the promise resolve.
// Every file-system call goes through an injectable facade so tests can
// observe the order of calls and simulate a full disk.
import * as nodeFs from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Adapter } from 'lowdb';
import { canonicalJson } from './canonical-json.ts';

/** The part of a FileHandle the store uses. */
export interface FileHandleLike {
  write(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesWritten: number }>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

/** The part of node:fs/promises the store uses (node:fs/promises itself is the default). */
export interface FsFacade {
  open(file: string, flags: string, mode?: number): Promise<FileHandleLike>;
  readFile(file: string, encoding: 'utf8'): Promise<string>;
  readdir(dir: string): Promise<string[]>;
  mkdir(dir: string, options: { recursive: true; mode?: number }): Promise<string | undefined>;
  chmod(file: string, mode: number): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  unlink(file: string): Promise<void>;
}

export const defaultFs: FsFacade = nodeFs;

/** Suffix of every temp file the store creates (they are also hidden: a leading dot). */
export const TEMP_SUFFIX = '.tmp';

/** Names the store's temp files have; such files found at open are crash leftovers and swept. */
export const isTempName = (name: string) => name.startsWith('.') && name.endsWith(TEMP_SUFFIX);

/** Writes `data` to `file` atomically and durably (see the header). */
export async function writeFileDurably(fs: FsFacade, file: string, data: string | Uint8Array, mode = 0o666,
  syncFolder: (dir: string) => Promise<void> = (dir) => syncDir(fs, dir)): Promise<void> {
  const dir = path.dirname(file);
  // Hidden, unique per write, and ending in TEMP_SUFFIX so a crash leftover is recognised.
  const temp = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`);
  const buffer = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  let handle: FileHandleLike | undefined;
  let renamed = false;
  try {
    handle = await fs.open(temp, 'wx', mode);
    let offset = 0;
    while (offset < buffer.length) {
      const { bytesWritten } = await handle.write(buffer, offset, buffer.length - offset, offset);
      // A write that makes no progress would loop forever; report it as an I/O error.
      if (!(bytesWritten > 0)) throw Object.assign(new Error(`short write to ${temp}`), { code: 'EIO' });
      offset += bytesWritten;
    }
    await handle.sync();
    const h = handle;
    handle = undefined;
    await h.close();
    await fs.rename(temp, file);
    renamed = true;
    await syncFolder(dir);
  } catch (error) {
    if (handle) await handle.close().catch(() => undefined);
    if (!renamed) await fs.unlink(temp).catch(() => undefined);
    throw error;
  }
}

/** Makes a folder's entries (created, renamed, removed files) durable. */
export async function syncDir(fs: FsFacade, dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export interface DurableFileOptions<T> {
  fs?: FsFacade;
  /** Mode of newly created files (before umask); 0o600 for secrets. */
  mode?: number;
  /** Bytes of a document (default canonicalJson); the store passes the text it already made. */
  serialize?: (data: T) => string;
  /** fsync of the file's folder after the rename (default: open, fsync, close); the store shares one per folder. */
  syncFolder?: (dir: string) => Promise<void>;
}

/** lowdb Adapter for one JSON document stored in canonical form. */
export class DurableFile<T> implements Adapter<T> {
  private readonly fs: FsFacade;
  private readonly mode: number;
  private readonly serialize: (data: T) => string;
  private readonly syncFolder?: (dir: string) => Promise<void>;

  constructor(readonly file: string, options: DurableFileOptions<T> = {}) {
    this.fs = options.fs ?? defaultFs;
    this.mode = options.mode ?? 0o666;
    this.serialize = options.serialize ?? canonicalJson;
    this.syncFolder = options.syncFolder;
  }

  /** The parsed document; null when the file does not exist. Unparseable content throws, naming the file. */
  async read(): Promise<T | null> {
    let text: string;
    try {
      text = await this.fs.readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw new Error(`cannot read data file ${this.file}: ${(error as Error).message}`, { cause: error });
    }
    try {
      return JSON.parse(text) as T;
    } catch (error) {
      throw new Error(`data file ${this.file} is not valid JSON (${(error as Error).message}); ` +
        'repair it (git can restore an earlier version) or move it out of the data folder', { cause: error });
    }
  }

  async write(data: T): Promise<void> {
    await writeFileDurably(this.fs, this.file, this.serialize(data), this.mode, this.syncFolder);
  }
}
