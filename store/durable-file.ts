// The lowdb adapter for one document file. Reading parses the file; writing
// hands the canonical bytes to a Writer (writer.ts), which makes them durable
// (write-thread.mjs) before the promise resolves. Both note the file's
// identity, so that the next write can tell whether the file it replaces is
// still the one the service knows. The few asynchronous
// file-system calls the store makes outside writes (loading, the owner lock,
// folder fsyncs at open) go through an injectable facade so tests can observe
// them and simulate failures.
import * as nodeFs from 'node:fs/promises';
import type { Adapter } from 'lowdb';
import { identityOf, TEMP_SUFFIX } from './write-thread.mjs';
import type { Writer } from './writer.ts';

export { TEMP_SUFFIX };

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
  /** The bytes, undecoded (a blob handed to a render thread). */
  readFile(file: string): Promise<Uint8Array>;
  stat(file: string, options: { bigint: true }): Promise<{ ino: bigint; size: bigint; mtimeNs: bigint }>;
  readdir(dir: string): Promise<string[]>;
  mkdir(dir: string, options: { recursive: true; mode?: number }): Promise<string | undefined>;
  chmod(file: string, mode: number): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  unlink(file: string): Promise<void>;
  rmdir(dir: string): Promise<void>;
}

export const defaultFs: FsFacade = nodeFs;

/** Names the store's temp files have; such files found at open are crash leftovers and swept. */
export const isTempName = (name: string) => name.startsWith('.') && name.endsWith(TEMP_SUFFIX);

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
  /** How writes are made; a file only ever read (at load) has none. */
  writes?: {
    writer: Writer;
    /** Mode of a newly created file (before umask); 0o600 for secrets. */
    mode: number;
    /** The document's file bytes in pieces: its canonical JSON as UTF-8 . */
    encode: (data: T) => readonly Uint8Array[];
    /** The identity the file must still have for the write to replace it ('' none); unchecked when absent. */
    expect?: string;
  };
}

/** lowdb Adapter for one JSON document stored in canonical form. */
export class DurableFile<T> implements Adapter<T> {
  private readonly fs: FsFacade;
  /** The file's identity (write-thread.mjs identityOf) as last read or written; '' when there was no file. */
  identity?: string;

  constructor(readonly file: string, private readonly options: DurableFileOptions<T> = {}) {
    this.fs = options.fs ?? defaultFs;
  }

  /** The parsed document; null when the file does not exist. Unparseable content throws, naming the file. */
  async read(): Promise<T | null> {
    let text: string;
    try {
      // Identity first: a change between the two calls then shows as a change at the next write, never the reverse.
      const identity = identityOf(await this.fs.stat(this.file, { bigint: true }));
      text = await this.fs.readFile(this.file, 'utf8');
      this.identity = identity;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        this.identity = '';
        return null;
      }
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
    const { writes } = this.options;
    if (!writes) throw new Error(`${this.file} was opened for reading only`);
    this.identity = await writes.writer.write(this.file, writes.encode(data), writes.mode, writes.expect);
  }
}
