// The file adapter: the data folder as the store's persistence (core.ts keeps
// memory and the rules). Layout:
//   <collection>/<id>/v<N>.json   one file per version of a map, dataset or
//                                 template, written once and never rewritten
//   <collection>/<id>/.outlines   the versions' outlines, one line each,
//                                 appended after its version is on disk
//   results/<sha256>.json         dataset results, named by their content
//   private/<key>.json            documents: users, keys, provider state (0600)
// Every file is written durably on a writer thread (writer.ts) before the
// caller hears of it. A version file is created only where none is (a file
// someone else put there is never overwritten: 409 changed_on_disk), and a
// document replaces only the file the service last read or wrote
// (known-files.ts). One process owns the folder (lock.ts).
import path from 'node:path';
import { Low } from 'lowdb';
import { ServiceError } from '../errors.ts';
import { createStore } from './core.ts';
import { DurableFile, defaultFs, syncDir, type FsFacade } from './durable-file.ts';
import { documentName } from './keys.ts';
import { KnownFiles } from './known-files.ts';
import { loadFolder, PRIVATE } from './load.ts';
import { acquireDirLock } from './lock.ts';
import type { Persistence } from './persistence.ts';
import { entryName, OUTLINES_NAME, readBounded, readBoundedBytes } from './stored-file.ts';
import { BLOB_COLLECTION, type Collection, type Store } from './types.ts';
import { CHANGED, identityOf, type SyncFs } from './write-thread.mjs';
import { inlineWriter, threadWriter, type Writer } from './writer.ts';

export interface FileStoreOptions {
  /** File-system calls outside writes (default node:fs/promises); tests inject recorders and failures. */
  fs?: FsFacade;
  /** File-system calls of writes, run inline; by default writes run on writer threads over node:fs. */
  syncFs?: SyncFs;
  /** Where notices go (swept temp files, ignored names, migrations, write failures). */
  log?: (message: string) => void;
}

export async function openFileStore(dir: string, options: FileStoreOptions = {}): Promise<Store> {
  const fs = options.fs ?? defaultFs;
  const log = options.log ?? ((message: string) => console.error(`[store] ${message}`));
  const root = path.resolve(dir);
  await fs.mkdir(root, { recursive: true });
  const lock = await acquireDirLock(root, fs, log);
  const known = new KnownFiles(fs, log);
  const writer = options.syncFs ? inlineWriter(options.syncFs) : threadWriter();
  const release = async () => {
    await writer.close();
    await lock.release();
  };
  try {
    const loaded = await loadFolder(fs, writer, root, known, log);
    for (const p of loaded.problems) log(`${p.where} ${p.message}`);
    for (const l of loaded.logs) if (l.problem) log(`${l.problem.where} ${l.problem.message}: ${l.collection}/${l.key} is unavailable`);
    return createStore(folderPersistence(fs, writer, root, known, release, log), loaded);
  } catch (error) {
    await release();
    throw error;
  }
}

function folderPersistence(fs: FsFacade, writer: Writer, root: string, known: KnownFiles,
  release: () => Promise<void>, log: (m: string) => void): Persistence {
  const docFile = (c: Collection, key: string) => path.join(root, c, `${key}.json`);
  const entryFile = (c: Collection, key: string, version: number) => path.join(root, c, key, entryName(version));
  const outlinesFile = (c: Collection, key: string) => path.join(root, c, key, OUTLINES_NAME);
  const appendOutlines = (c: Collection, key: string, records: ReadonlyArray<readonly [number, string]>) =>
    writer.append(outlinesFile(c, key), [Buffer.from(records.map(outlineRecord).join(''))], 0o666);
  const write = (file: string, text: string, mode: number, expect?: string) => writer.write(file, [Buffer.from(text)], mode, expect);

  const persistence: Persistence = {
    async writeDoc(c, key, text, previous) {
      const what = documentName(c, key), file = docFile(c, key);
      const identity: string = await known.guard(what, file, previous, async (expect) => {
        const adapter = new DurableFile<string>(file, {
          fs, writes: { writer, mode: c === PRIVATE ? 0o600 : 0o666, encode: (t) => [Buffer.from(t)], expect },
        });
        await new Low(adapter, text).write();
        return adapter.identity!;
      }).catch(async (error) => {
        // Failed after its rename (the folder fsync): the file is the service's own, unacknowledged
        // write; known as such, the next write replaces it instead of taking it for someone else's.
        const ours = error instanceof ServiceError ? undefined : await holding(fs, file, text);
        if (ours !== undefined) known.set(what, ours);
        return failed(error, what, log);
      });
      known.set(what, identity);
    },
    async removeDoc(c, key, previous) {
      const what = documentName(c, key);
      await known.guard(what, docFile(c, key), previous, (expect) => writer.remove(docFile(c, key), expect), true)
        .catch((error) => failed(error, what, log));
      known.delete(what);
    },
    async writeEntry(c, key, version, text, first, outline) {
      const where = persistence.whereEntry(c, key, version);
      const file = entryFile(c, key, version);
      try {
        // A new resource's folder, and its entry in the collection folder, exist durably before its first
        // version; fsynced even when the folder exists already (left by a failed or interrupted first write).
        if (first) {
          await fs.mkdir(path.join(root, c, key), { recursive: true });
          await syncDir(fs, path.join(root, c));
        }
        await write(file, text, 0o666, ''); // '': only where no file is
        // The outline once its version is on disk, so a stored outline always describes a stored version. Should
        // its append fail, the version goes too (below): the caller hears that neither was saved.
        await appendOutlines(c, key, [[version, outline]]);
      } catch (error) {
        // Failed after its rename (the folder fsync): the file would claim a version the caller was told
        // is not saved, and refuse the retry as changed on disk. Removed; it was never acknowledged.
        if ((error as NodeJS.ErrnoException).code !== CHANGED && (await holding(fs, file, text)) !== undefined) {
          await writer.remove(file).catch(() => undefined);
        }
        // A first version that failed leaves no empty folder behind (a full disk must not fill with them).
        if (first && (error as NodeJS.ErrnoException).code !== CHANGED) {
          await writer.remove(outlinesFile(c, key)).catch(() => undefined);
          await fs.rmdir(path.join(root, c, key)).catch(() => undefined);
        }
        if ((error as NodeJS.ErrnoException).code === CHANGED) {
          log(`did not save ${where}: a file of that name was put in the data folder by something other than the service`);
          throw new ServiceError('changed_on_disk', `version ${version} of ${c}/${key} is already on disk although the service ` +
            'did not write it (a checkout, a merge or a copy under the running service); nothing was saved; ' +
            'restart the service to serve the data folder as it is now');
        }
        failed(error, where, log);
      }
    },
    readEntry: (c, key, version) => readBounded(fs, entryFile(c, key, version)),
    whereEntry: (c, key, version) => `${c}/${key}/${entryName(version)}`,
    readOutlines: async (c, key) => {
      // Missing (a folder an earlier release wrote) or unreadable: the outlines are made from the versions.
      const text = await readBounded(fs, outlinesFile(c, key)).catch(() => '');
      return parseOutlineRecords(text);
    },
    keepOutlines: async (c, key, records) => appendOutlines(c, key, records),
    async dropLog(c, key, versions) {
      try {
        await writer.remove(outlinesFile(c, key)); // first: a log's folder never holds outlines without their versions
        for (const v of versions) await writer.remove(entryFile(c, key, v));
        await fs.rmdir(path.join(root, c, key)).catch(() => undefined);
      } catch (error) {
        failed(error, `${c}/${key}`, log);
      }
    },
    async writeBlob(key, text) {
      // The name is the content's hash: a file already there holds these very bytes.
      await write(docFile(BLOB_COLLECTION, key), text, 0o666).catch((error) => failed(error, persistence.whereBlob(key), log));
    },
    readBlob: (key) => readBounded(fs, docFile(BLOB_COLLECTION, key)),
    readBlobBytes: (key) => readBoundedBytes(fs, docFile(BLOB_COLLECTION, key)),
    whereBlob: (key) => `${BLOB_COLLECTION}/${key}.json`,
    async removeBlob(key) {
      await writer.remove(docFile(BLOB_COLLECTION, key)).catch((error) => failed(error, persistence.whereBlob(key), log));
    },
    close: release,
  };
  return persistence;
}

/** One line per outline: `<version> <outline>`, begun with a line break so that one cut short by a crash never joins the next. */
const outlineRecord = ([version, outline]: readonly [number, string]) => `\n${version} ${outline}`;
const RECORD = /^([1-9][0-9]{0,15}) (.+)$/;

/** The [version, outline] records of an outlines file, in order; lines of another shape (cut short) are left out. */
function parseOutlineRecords(text: string): Array<readonly [number, string]> {
  const records: Array<readonly [number, string]> = [];
  for (const line of text.split('\n')) {
    const m = RECORD.exec(line);
    if (m) records.push([Number(m[1]), m[2]]);
  }
  return records;
}

/** The identity of `file` when it holds exactly `text`; undefined otherwise (or when it cannot be read). */
async function holding(fs: FsFacade, file: string, text: string): Promise<string | undefined> {
  try {
    const stats = await fs.stat(file, { bigint: true });
    if (stats.size !== BigInt(Buffer.byteLength(text))) return undefined;
    return (await fs.readFile(file, 'utf8')) === text ? identityOf(stats) : undefined;
  } catch {
    return undefined;
  }
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

;
