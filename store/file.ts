// The file adapter: lowdb over the data folder, one document per file
// `<dir>/<collection>/<key>.json` in canonical JSON, so `git log -p` on a file
// shows that resource's history. The folder is scanned once at open (leftover
// temp files swept, every document loaded); after that reads are served from
// memory and each write goes through a lowdb `Low` whose adapter
// (DurableFile) writes durably on a writer thread (writer.ts); memory changes
// only after the file is durable. Written documents are frozen and share
// unchanged parts, and their bytes, with the previous version of the
// document (document-builder.ts). Secrets live in `private/` (0700, its own
// `.gitignore`, files 0600). One process owns the folder (lock.ts). A file
// changed on disk by something else (a checkout, an editor) is never
// overwritten: a write or removal that finds it changed is refused (409).
import path from 'node:path';
import { Low } from 'lowdb';
import { ServiceError } from '../errors.ts';
import { DocumentBuilder } from './document-builder.ts';
import { DocIndex } from './doc-index.ts';
import { canonicalJson } from './canonical-json.ts';
import { DurableFile, defaultFs, isTempName, syncDir, TEMP_SUFFIX, type FsFacade } from './durable-file.ts';
import { KeyLock } from './key-lock.ts';
import { assertDocument, assertKey } from './keys.ts';
import { acquireDirLock, LOCK_NAME } from './lock.ts';
import { COLLECTIONS, KEY_PATTERN, type Collection, type Json, type Store } from './types.ts';
import { CHANGED, type SyncFs } from './write-thread.mjs';
import { inlineWriter, threadWriter, type Writer } from './writer.ts';

export interface FileStoreOptions {
  /** File-system calls outside writes (default node:fs/promises); tests inject recorders and failures. */
  fs?: FsFacade;
  /** File-system calls of writes, run inline; by default writes run on writer threads over node:fs. */
  syncFs?: SyncFs;
  /** Where notices go (swept temp files, ignored names, write failures). */
  log?: (message: string) => void;
}

const PRIVATE: Collection = 'private';
const PRIVATE_GITIGNORE = '*\n';
/** Written at the folder's root when it has no .gitignore: a committed lock would let a checkout delete it under a running service. */
const ROOT_GITIGNORE = `# Written by the Map Topology Service: never commit its lock or unfinished writes.\n${LOCK_NAME}\n.*${TEMP_SUFFIX}\n`;
/** Files read at once while loading: enough to keep the thread pool busy. */
const LOAD_CONCURRENCY = 32;

export async function openFileStore(dir: string, options: FileStoreOptions = {}): Promise<Store> {
  const fs = options.fs ?? defaultFs;
  const log = options.log ?? ((message: string) => console.error(`[store] ${message}`));
  const root = path.resolve(dir);
  await fs.mkdir(root, { recursive: true });
  const lock = await acquireDirLock(root, fs);
  const index = new DocIndex();
  const identities: Identities = new Map();
  const writer = options.syncFs ? inlineWriter(options.syncFs) : threadWriter();
  const release = async () => {
    await writer.close();
    await lock.release();
  };
  try {
    await prepareFolders(fs, writer, root);
    await sweepTemps(fs, root, await fs.readdir(root), log);
    for (const collection of COLLECTIONS) await loadCollection(fs, root, collection, index, identities, log);
  } catch (error) {
    await release();
    throw error;
  }
  return fileStore(fs, writer, root, index, identities, release, log);
}

/** The identity (write-thread.mjs identityOf) of each document's file as the service last read or wrote it, by `<collection>/<key>`. */
type Identities = Map<string, string>;

function fileStore(fs: FsFacade, writer: Writer, root: string, index: DocIndex, identities: Identities,
  release: () => Promise<void>, log: (m: string) => void): Store {
  const locks = new KeyLock();
  const builder = new DocumentBuilder();
  let closed = false;
  const ensureOpen = () => {
    if (closed) throw new Error(`store ${root} is closed`);
  };
  const fileOf = (c: Collection, key: string) => path.join(root, c, `${key}.json`);
  /**
   * Runs a write or removal of `c/key` that checks the file is the one the
   * service knows; its result. When the file changed on disk yet holds what
   * memory holds (touched, or checked out with the same content), `op` runs
   * once more with its new identity; otherwise nothing is written: 409.
   */
  const guarded = async <R>(c: Collection, key: string, op: (expect: string) => Promise<R>, goneIsFine = false): Promise<R> => {
    const what = `${c}/${key}`;
    const attempt = async (expect: string) => {
      try {
        return { result: await op(expect) };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === CHANGED) return undefined;
        throw storageFailure(error, what, log);
      }
    };
    const first = await attempt(identities.get(what) ?? '');
    if (first) return first.result;
    const now = await identityIfUnchanged(fs, fileOf(c, key), index.get(c, key) as Json | undefined, goneIsFine);
    const second = now === undefined ? undefined : await attempt(now);
    if (second) return second.result;
    log(`did not save ${what}: its file was changed on disk by something other than the service; restart the service to load it`);
    throw new ServiceError('changed_on_disk', `the data file of ${what} was changed on disk after the service read it ` +
      '(by a checkout, a merge or an editor), so this request was not saved and the change is kept; ' +
      'restart the service to serve the data folder as it is now');
  };

  return {
    get: (c, key) => index.get(c, key) as any,
    entries: (c) => index.entries(c) as any,
    update: async (c, key, fn) => {
      assertKey(c, key);
      return locks.run(`${c}/${key}`, async () => {
        ensureOpen();
        const next = await fn(index.get(c, key) as any);
        assertDocument(c, key, next);
        // The in-memory copy is exactly what a restart reads back; parts built before are reused.
        const stored = builder.build(next);
        const chunks = builder.chunks(stored); // = canonicalJson(next) as UTF-8, old parts' bytes reused
        const identity = await guarded(c, key, async (expect) => {
          const adapter = new DurableFile<typeof stored>(fileOf(c, key), {
            fs, writes: { writer, mode: c === PRIVATE ? 0o600 : 0o666, encode: () => chunks, expect },
          });
          await new Low(adapter, stored).write();
          return adapter.identity!;
        });
        // Memory changes only once the file is durable: a failed write leaves the old document served.
        identities.set(`${c}/${key}`, identity);
        index.set(c, key, stored);
        return stored;
      });
    },
    delete: async (c, key) => {
      assertKey(c, key);
      return locks.run(`${c}/${key}`, async () => {
        ensureOpen();
        await guarded(c, key, (expect) => writer.remove(fileOf(c, key), expect), true);
        identities.delete(`${c}/${key}`);
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

function storageFailure(error: unknown, what: string, log: (m: string) => void): ServiceError {
  const code = (error as NodeJS.ErrnoException).code;
  log(`could not write ${what}: ${(error as Error).message}`);
  const detail = code === 'ENOSPC' || code === 'EDQUOT'
    ? `the data folder is full; ${what} was not saved`
    : `the data folder could not be written (${code ?? 'I/O error'}); ${what} was not saved`;
  return new ServiceError('storage_unavailable', detail, { cause: error });
}

/**
 * The identity of `file` when it holds `doc` (as JSON, in any layout), or is
 * absent while `doc` is (or `goneIsFine`); undefined when it holds anything
 * else.
 */
async function identityIfUnchanged(fs: FsFacade, file: string, doc: Json | undefined, goneIsFine: boolean): Promise<string | undefined> {
  const adapter = new DurableFile<Json>(file, { fs });
  let found: Json | null;
  try {
    found = await adapter.read();
  } catch {
    return undefined; // unreadable, or not JSON: not the document the service holds
  }
  if (found === null) return doc === undefined || goneIsFine ? '' : undefined;
  return doc !== undefined && canonicalJson(found) === canonicalJson(doc) ? adapter.identity : undefined;
}

/** Collection folders exist; private/ is owner-only and tells git to ignore everything in it; the root ignores the lock and temp files unless it has a .gitignore of its own. */
async function prepareFolders(fs: FsFacade, writer: Writer, root: string): Promise<void> {
  let created = false;
  for (const c of COLLECTIONS) {
    const mode = c === PRIVATE ? 0o700 : 0o777;
    if (await fs.mkdir(path.join(root, c), { recursive: true, mode })) created = true;
  }
  if (created) await syncDir(fs, root);
  const privateDir = path.join(root, PRIVATE);
  await fs.chmod(privateDir, 0o700);
  const gitignore = path.join(privateDir, '.gitignore');
  const current = await fs.readFile(gitignore, 'utf8').catch(() => undefined);
  if (current !== PRIVATE_GITIGNORE) await writer.write(gitignore, [Buffer.from(PRIVATE_GITIGNORE)], 0o600);
  const rootIgnore = path.join(root, '.gitignore');
  if ((await fs.readFile(rootIgnore, 'utf8').catch(() => undefined)) === undefined) {
    await writer.write(rootIgnore, [Buffer.from(ROOT_GITIGNORE)], 0o644);
  }
}

/** Removes temp files left by writes that a crash interrupted (we hold the lock, so none is in use). */
async function sweepTemps(fs: FsFacade, folder: string, names: string[], log: (m: string) => void): Promise<string[]> {
  const temps = names.filter(isTempName);
  for (const name of temps) await fs.unlink(path.join(folder, name)).catch(() => undefined);
  if (temps.length > 0) {
    await syncDir(fs, folder);
    log(`removed ${temps.length} unfinished temp file(s) from ${folder}`);
  }
  return names.filter((name) => !isTempName(name));
}

async function loadCollection(fs: FsFacade, root: string, c: Collection, index: DocIndex, identities: Identities,
  log: (m: string) => void): Promise<void> {
  const folder = path.join(root, c);
  const names = await sweepTemps(fs, folder, await fs.readdir(folder), log);
  const keys: string[] = [];
  for (const name of names) {
    if (name.startsWith('.')) continue; // .gitignore, .gitkeep and the like
    const key = name.endsWith('.json') ? name.slice(0, -'.json'.length) : '';
    if (KEY_PATTERN.test(key)) keys.push(key);
    else log(`ignoring ${path.join(folder, name)}: not named <key>.json with a key of ${KEY_PATTERN}`);
  }
  await forEachLimit(keys, LOAD_CONCURRENCY, async (key) => {
    const file = path.join(folder, `${key}.json`);
    const adapter = new DurableFile<Json | null>(file, { fs });
    const db = new Low<Json | null>(adapter, null);
    await db.read(); // throws naming the file when it is not valid JSON
    if (db.data === null || typeof db.data !== 'object') {
      throw new Error(`data file ${file} does not hold a JSON object or array; repair it or move it out of the data folder`);
    }
    if (c === PRIVATE) await fs.chmod(file, 0o600);
    index.load(c, key, db.data);
    identities.set(`${c}/${key}`, adapter.identity!);
  });
}

async function forEachLimit<T>(items: T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
