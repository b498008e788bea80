// Opening a data folder, once, before the store serves it: the collection
// folders and the .gitignore files made ready, temp files left by a crash
// swept, folders of an earlier layout migrated (migrate.ts), the documents
// read, and of every log only its entry numbers and its latest entry. A file
// that cannot be read makes its own resource unavailable (a problem), never
// the start fail; only a secret in private/ that cannot be read stops it,
// since users and keys cannot be served in part.
import path from 'node:path';
import { Low } from 'lowdb';
import { deepFreeze } from './canonical-json.ts';
import { DurableFile, isTempName, syncDir, TEMP_SUFFIX, type FsFacade } from './durable-file.ts';
import type { KnownFiles } from './known-files.ts';
import { documentName } from './keys.ts';
import { LOCK_NAME } from './lock.ts';
import { migrateCollection } from './migrate.ts';
import { ENTRY_NAME, entryName, OUTLINES_NAME, parseStored, readBounded } from './stored-file.ts';
import type { Loaded, LoadedLog } from './persistence.ts';
import { BLOB_COLLECTION, COLLECTIONS, KEY_PATTERN, LOG_COLLECTIONS, type Entry, type Json, type LogCollection, } from './types.ts';
import type { Writer } from './writer.ts';

export const PRIVATE = 'private';
const PRIVATE_GITIGNORE = '*\n';
/**
 * Written at the folder's root when it has no .gitignore: a committed lock would let a checkout delete it under a
 * running service; the versions' outlines are made from the versions, and two clones' appends would only conflict.
 */
const ROOT_GITIGNORE = `# Written by the Map Topology Service: never commit its lock, unfinished writes or what it makes from versions.
${LOCK_NAME}\n.*${TEMP_SUFFIX}\n${OUTLINES_NAME}\n`;
/** Files read at once while loading: enough to keep the thread pool busy. */
const LOAD_CONCURRENCY = 32;

/** Makes the folder at `root` ready and reads what the store keeps in memory. */
export async function loadFolder(fs: FsFacade, writer: Writer, root: string, known: KnownFiles,
  log: (m: string) => void): Promise<Loaded> {
  await prepareFolders(fs, writer, root);
  await sweepTemps(fs, root, await fs.readdir(root), log);
  const loaded: Loaded = { docs: [], logs: [], blobs: [], problems: [] };
  for (const c of LOG_COLLECTIONS) {
    const folder = path.join(root, c);
    const names = await sweepTemps(fs, folder, await fs.readdir(folder), log);
    const failed = await migrateCollection(fs, writer, root, c, names, log);
    const keys = (await fs.readdir(folder)).filter((name) => {
      if (name.startsWith('.') || failed.has(name.replace(/\.json$/, ''))) return false;
      if (KEY_PATTERN.test(name) && !name.endsWith('.json')) return true;
      log(`ignoring ${path.join(folder, name)}: not a resource folder named by its ID`);
      return false;
    });
    for (const problem of failed.values()) loaded.logs.push({ collection: c, key: problem.key, versions: [], problem });
    await forEachLimit(keys, LOAD_CONCURRENCY, async (key) => {
      const found = await scanLog(fs, root, c, key, log);
      if (found) loaded.logs.push(found);
    });
  }
  loaded.blobs = await blobKeys(fs, root, log);
  await loadDocuments(fs, root, known, loaded, log);
  return loaded;
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
    await syncDir(fs, folder).catch(() => undefined); // a full disk may refuse; the next start sweeps again
    log(`removed ${temps.length} unfinished temp file(s) from ${folder}`);
  }
  return names.filter((name) => !isTempName(name));
}

/** The entry numbers of one log and its latest entry; or the problem that makes it unavailable. */
async function scanLog(fs: FsFacade, root: string, c: LogCollection, key: string, log: (m: string) => void): Promise<LoadedLog | undefined> {
  const folder = path.join(root, c, key);
  const problem = (where: string, message: string): LoadedLog =>
    ({ collection: c, key, versions, problem: { collection: c, key, where, message } });
  let versions: number[] = [];
  let names: string[];
  try {
    names = await sweepTemps(fs, folder, await fs.readdir(folder), log);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') { // a file (a README) beside the resource folders
      log(`ignoring ${folder}: not a resource folder named by its ID`);
      return undefined;
    }
    return problem(`${c}/${key}`, `cannot be listed (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  for (const name of names) {
    const m = ENTRY_NAME.exec(name);
    if (m) versions.push(Number(m[1]));
    else if (!name.startsWith('.')) log(`ignoring ${path.join(folder, name)}: not named v<version>.json`);
  }
  if (versions.length === 0) {
    log(`ignoring ${folder}: it holds no versions`);
    return undefined;
  }
  versions = versions.sort((a, b) => a - b);
  const latest = versions[versions.length - 1];
  const where = `${c}/${key}/${entryName(latest)}`;
  try {
    const text = await readBounded(fs, path.join(folder, entryName(latest)));
    const head = parseStored<Entry>(text);
    if (head === null || typeof head !== 'object' || Array.isArray(head) || head.version !== latest) {
      return problem(where, `does not hold an object with version ${latest}`);
    }
    return { collection: c, key, versions, head: deepFreeze(head) };
  } catch (error) {
    return problem(where, (error as Error).message);
  }
}

async function blobKeys(fs: FsFacade, root: string, log: (m: string) => void): Promise<string[]> {
  const folder = path.join(root, BLOB_COLLECTION);
  const names = await sweepTemps(fs, folder, await fs.readdir(folder), log);
  const keys: string[] = [];
  for (const name of names) {
    if (name.startsWith('.')) continue;
    const key = name.endsWith('.json') ? name.slice(0, -'.json'.length) : '';
    if (KEY_PATTERN.test(key)) keys.push(key);
    else log(`ignoring ${path.join(folder, name)}: not named <key>.json`);
  }
  return keys;
}

/** The documents of private/ (users, keys, provider state): all read, each file's identity noted. */
async function loadDocuments(fs: FsFacade, root: string, known: KnownFiles, loaded: Loaded, log: (m: string) => void): Promise<void> {
  const folder = path.join(root, PRIVATE);
  const names = await sweepTemps(fs, folder, await fs.readdir(folder), log);
  for (const name of names) {
    if (name.startsWith('.')) continue;
    const key = name.endsWith('.json') ? name.slice(0, -'.json'.length) : '';
    if (!KEY_PATTERN.test(key)) {
      log(`ignoring ${path.join(folder, name)}: not named <key>.json with a key of ${KEY_PATTERN}`);
      continue;
    }
    const file = path.join(folder, name);
    const adapter = new DurableFile<Json | null>(file, { fs });
    const db = new Low<Json | null>(adapter, null);
    await db.read(); // throws naming the file when it is not valid JSON
    if (db.data === null || typeof db.data !== 'object') {
      throw new Error(`data file ${file} does not hold a JSON object or array; repair it or move it out of the data folder`);
    }
    await fs.chmod(file, 0o600);
    loaded.docs.push([PRIVATE, key, deepFreeze(db.data)]);
    known.set(documentName(PRIVATE, key), adapter.identity!);
  }
}

async function forEachLimit<T>(items: T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
