// The file adapter: lowdb over the data folder, one document per file
// `<dir>/<collection>/<key>.json` in canonical JSON, so `git log -p` on a file
// shows that resource's history. The folder is scanned once at open (leftover
// temp files swept, every document loaded); after that reads are served from
// memory and each write goes through a lowdb `Low` whose adapter
// (DurableFile) writes durably on a writer thread (writer.ts); memory changes
// only after the file is durable. Written documents are frozen and share
// unchanged parts, and their bytes, with the previous version of the
// document (document-builder.ts). Secrets live in `private/` (0700, its own
// `.gitignore`, files 0600; load.ts). One process owns the folder (lock.ts).
// A file changed on disk by something else (a checkout, an editor) is never
// overwritten: a write or removal that finds it changed is refused with 409
// (known-files.ts).
import path from 'node:path';
import { Low } from 'lowdb';
import { ServiceError } from '../errors.ts';
import { DocIndex } from './doc-index.ts';
import { DocumentBuilder } from './document-builder.ts';
import { DurableFile, defaultFs, type FsFacade } from './durable-file.ts';
import { KeyLock } from './key-lock.ts';
import { assertDocument, assertKey, documentName } from './keys.ts';
import { KnownFiles } from './known-files.ts';
import { loadFolder, PRIVATE } from './load.ts';
import { acquireDirLock } from './lock.ts';
import type { Collection, Json, Store } from './types.ts';
import type { SyncFs } from './write-thread.mjs';
import { inlineWriter, threadWriter, type Writer } from './writer.ts';

export interface FileStoreOptions {
  /** File-system calls outside writes (default node:fs/promises); tests inject recorders and failures. */
  fs?: FsFacade;
  /** File-system calls of writes, run inline; by default writes run on writer threads over node:fs. */
  syncFs?: SyncFs;
  /** Where notices go (swept temp files, ignored names, write failures). */
  log?: (message: string) => void;
}

export async function openFileStore(dir: string, options: FileStoreOptions = {}): Promise<Store> {
  const fs = options.fs ?? defaultFs;
  const log = options.log ?? ((message: string) => console.error(`[store] ${message}`));
  const root = path.resolve(dir);
  await fs.mkdir(root, { recursive: true });
  const lock = await acquireDirLock(root, fs);
  const index = new DocIndex();
  const known = new KnownFiles(fs, log);
  const writer = options.syncFs ? inlineWriter(options.syncFs) : threadWriter();
  const release = async () => {
    await writer.close();
    await lock.release();
  };
  try {
    await loadFolder(fs, writer, root, index, known, log);
  } catch (error) {
    await release();
    throw error;
  }
  return fileStore(fs, writer, root, index, known, release, log);
}

function fileStore(fs: FsFacade, writer: Writer, root: string, index: DocIndex, known: KnownFiles,
  release: () => Promise<void>, log: (m: string) => void): Store {
  const locks = new KeyLock();
  const builder = new DocumentBuilder();
  let closed = false;
  const ensureOpen = () => {
    if (closed) throw new Error(`store ${root} is closed`);
  };
  const fileOf = (c: Collection, key: string) => path.join(root, c, `${key}.json`);

  return {
    get: (c, key) => index.get(c, key) as any,
    entries: (c) => index.entries(c) as any,
    update: async (c, key, fn) => {
      assertKey(c, key);
      const what = documentName(c, key), file = fileOf(c, key);
      return locks.run(what, async () => {
        ensureOpen();
        const next = await fn(index.get(c, key) as any);
        assertDocument(c, key, next);
        // The in-memory copy is exactly what a restart reads back; parts built before are reused.
        const stored = builder.build(next);
        const chunks = builder.chunks(stored); // = canonicalJson(next) as UTF-8, old parts' bytes reused
        const identity: string = await known.guard(what, file, index.get(c, key) as Json | undefined, async (expect) => {
          const adapter = new DurableFile<typeof stored>(file, {
            fs, writes: { writer, mode: c === PRIVATE ? 0o600 : 0o666, encode: () => chunks, expect },
          });
          await new Low(adapter, stored).write();
          return adapter.identity!;
        }).catch((error) => failed(error, what, log));
        // Memory changes only once the file is durable: a failed write leaves the old document served.
        known.set(what, identity);
        index.set(c, key, stored);
        return stored;
      });
    },
    delete: async (c, key) => {
      assertKey(c, key);
      const what = documentName(c, key), file = fileOf(c, key);
      return locks.run(what, async () => {
        ensureOpen();
        const remove = (expect: string) => writer.remove(file, expect);
        await known.guard(what, file, index.get(c, key) as Json | undefined, remove, true)
          .catch((error) => failed(error, what, log));
        known.delete(what);
        index.delete(c, key);
      });
    },
    close: async () => {
      if (closed) return;
      await locks.idle();
      closed = true;
      await release();
    },
  };
}

/** Throws the failure of a write or removal of `what` as the ServiceError a client gets (507 for the disk's errnos). */
function failed(error: unknown, what: string, log: (m: string) => void): never {
  if (error instanceof ServiceError) throw error;
  const code = (error as NodeJS.ErrnoException).code;
  log(`could not write ${what}: ${(error as Error).message}`);
  const detail = code === 'ENOSPC' || code === 'EDQUOT'
    ? `the data folder is full; ${what} was not saved`
    : `the data folder could not be written (${code ?? 'I/O error'}); ${what} was not saved`;
  throw new ServiceError('storage_unavailable', detail, { cause: error });
}
