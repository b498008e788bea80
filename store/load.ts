// Opening a data folder, once, before the store serves it: the collection
// folders and the .gitignore files made ready, temp files left by a crash
// swept, and every document read into the index, each file's identity noted
// (known-files.ts).
import path from 'node:path';
import { Low } from 'lowdb';
import type { DocIndex } from './doc-index.ts';
import { DurableFile, isTempName, syncDir, TEMP_SUFFIX, type FsFacade } from './durable-file.ts';
import type { KnownFiles } from './known-files.ts';
import { documentName } from './keys.ts';
import { LOCK_NAME } from './lock.ts';
import { COLLECTIONS, KEY_PATTERN, type Collection, type Json } from './types.ts';
import type { Writer } from './writer.ts';

export const PRIVATE: Collection = 'private';
const PRIVATE_GITIGNORE = '*\n';
/** Written at the folder's root when it has no .gitignore: a committed lock would let a checkout delete it under a running service. */
const ROOT_GITIGNORE = `# Written by the Map Topology Service: never commit its lock or unfinished writes.\n${LOCK_NAME}\n.*${TEMP_SUFFIX}\n`;
/** Files read at once while loading: enough to keep the thread pool busy. */
const LOAD_CONCURRENCY = 32;

/** Makes the folder at `root` ready and loads every document of it into `index`. */
export async function loadFolder(fs: FsFacade, writer: Writer, root: string, index: DocIndex, known: KnownFiles,
  log: (m: string) => void): Promise<void> {
  await prepareFolders(fs, writer, root);
  await sweepTemps(fs, root, await fs.readdir(root), log);
  for (const collection of COLLECTIONS) await loadCollection(fs, root, collection, index, known, log);
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

async function loadCollection(fs: FsFacade, root: string, c: Collection, index: DocIndex, known: KnownFiles,
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
    known.set(documentName(c, key), adapter.identity!);
  });
}

async function forEachLimit<T>(items: T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
