// Moving a data folder of the earlier layout to the append-only one, at open.
// Before: one file per resource, `<collection>/<id>.json` = {"versions": [...]},
// rewritten whole on every write. After: one folder per resource,
// `<collection>/<id>/v<N>.json`, one file per version, never rewritten.
// Durable at every moment: each version file is written atomically (temp,
// fsync, rename, folder fsync) and the old file is removed only after all of
// them, so a crash anywhere leaves the old file in place and the next start
// migrates it again, rewriting the same bytes. Nothing is served before this
// finishes. A file that cannot be migrated is left as it is and its resource
// reported unavailable.
import path from 'node:path';
import { canonicalJson } from './canonical-json.ts';
import { syncDir, type FsFacade } from './durable-file.ts';
import { entryName, parseStored, readBounded } from './stored-file.ts';
import { KEY_PATTERN, type LogCollection, type UnreadableFile } from './types.ts';
import type { Writer } from './writer.ts';

/** Version files written at once (the writer groups them, one folder fsync per group). */
const BATCH = 32;

/** Migrates every `<id>.json` among `names`; the problems of the ones it could not, by key. */
export async function migrateCollection(fs: FsFacade, writer: Writer, root: string, c: LogCollection, names: string[],
  log: (m: string) => void): Promise<Map<string, UnreadableFile>> {
  const failed = new Map<string, UnreadableFile>();
  for (const name of names) {
    const key = name.endsWith('.json') ? name.slice(0, -'.json'.length) : '';
    if (!KEY_PATTERN.test(key)) continue;
    const where = `${c}/${name}`;
    try {
      const versions = oldVersions(parseStored(await readBounded(fs, path.join(root, c, name))));
      const folder = path.join(root, c, key);
      if (await fs.mkdir(folder, { recursive: true })) await syncDir(fs, path.join(root, c));
      for (let i = 0; i < versions.length; i += BATCH) {
        await Promise.all(versions.slice(i, i + BATCH).map((v) =>
          writer.write(path.join(folder, entryName(v.version as number)), [Buffer.from(canonicalJson(v))], 0o666)));
      }
      await writer.remove(path.join(root, c, name)); // last: until now a restart migrates it again
      log(`migrated ${where} (${versions.length} versions) to ${c}/${key}/v<N>.json`);
    } catch (error) {
      const message = `could not be moved to the layout of one file per version: ${(error as Error).message}`;
      failed.set(key, { collection: c, key, where, message });
      log(`${where} ${message}`);
    }
  }
  return failed;
}

/** The versions of an old-layout document, checked: objects with whole, increasing version numbers. */
function oldVersions(doc: unknown): Array<Record<string, unknown>> {
  const versions = (doc as { versions?: unknown } | null)?.versions;
  if (!Array.isArray(versions)) throw new Error('expected {"versions": [...]}');
  let previous = 0;
  for (const [i, v] of versions.entries()) {
    const n = (v as { version?: unknown } | null)?.version;
    if (v === null || typeof v !== 'object' || Array.isArray(v) || !Number.isSafeInteger(n) || (n as number) <= previous) {
      throw new Error(`versions[${i}] is not an object with a whole version number above ${previous}`);
    }
    previous = n as number;
  }
  return versions as Array<Record<string, unknown>>;
}
