// Moving a deployment between two stores (a data folder and PostgreSQL, either
// way): every document, every version of every log and every blob, exactly as
// stored, so IDs, version numbers, authors and timestamps carry over and an
// export after an import gives the same files. Blobs keep their keys (older
// data folders name results by dataset and version, not by hash), so each
// side says how to store one under a given key.
import { canonicalJson } from './canonical-json.ts';
import { DOC_COLLECTIONS, KEY_PATTERN, LOG_COLLECTIONS, type Store } from './types.ts';

export interface TransferCounts {
  documents: number;
  logs: number;
  versions: number;
  blobs: number;
}

/** Why `store` cannot take a deployment (it holds data already); undefined when it is empty. */
export function notEmpty(store: Store): string | undefined {
  const held = [
    ...DOC_COLLECTIONS.filter((c) => store.entries(c).length > 0),
    ...LOG_COLLECTIONS.filter((c) => store.heads(c).length > 0),
    ...(store.blobKeys().length > 0 ? ['results'] : []),
  ];
  return held.length > 0 ? `it holds data already (${held.join(', ')})` : undefined;
}

/** Copies everything `from` holds into the empty `to`; `putBlob` stores a blob's canonical text under its key. */
export async function transfer(from: Store, to: Store, putBlob: (key: string, text: string) => Promise<void>,
  progress: (line: string) => void = () => undefined): Promise<TransferCounts> {
  const problems = from.problems();
  if (problems.length > 0) {
    throw new Error(`the source has data it cannot read, which would not be copied: ${problems.map((p) => `${p.where} ${p.message}`).join('; ')}`);
  }
  const counts: TransferCounts = { documents: 0, logs: 0, versions: 0, blobs: 0 };
  for (const c of DOC_COLLECTIONS) {
    for (const [key, doc] of from.entries(c)) {
      await to.update(c, key, () => doc);
      counts.documents++;
    }
  }
  for (const c of LOG_COLLECTIONS) {
    for (const [key] of from.heads(c)) {
      for (const version of from.versions(c, key)) {
        const entry = await from.read(c, key, version);
        if (!entry) throw new Error(`${c}/${key} version ${version} could not be read`);
        await to.append(c, key, () => entry);
        counts.versions++;
      }
      counts.logs++;
    }
    progress(`${c}: ${from.heads(c).length} copied`);
  }
  for (const key of from.blobKeys()) {
    if (!KEY_PATTERN.test(key)) throw new Error(`blob key ${JSON.stringify(key)} is not a valid key`);
    await putBlob(key, canonicalJson(await from.fetch(key)));
    counts.blobs++;
  }
  return counts;
}
