// What the data folder must hold for the versioned resources, checked once at
// start. The folder is plain files that people edit, merge and check out; the
// rest of the service relies on these rules, and one file breaking them would
// otherwise answer 500 on every list of its collection (the public maps list
// too) or let the next write number a version wrongly. A file that breaks a
// rule stops the start with a message naming the file and the rule.
import { ID_PATTERN } from '../schema/common.ts';
import type { Store } from '../store/types.ts';
import type { ResourceKind } from './types.ts';

// `<id>.v<version>`: the ID pattern, less its closing `$`, then the version.
const RESULTS_KEY = new RegExp(`${ID_PATTERN.source.slice(0, -1)}\\.v[1-9][0-9]*$`);
const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const quote = (x: unknown) => JSON.stringify(x)?.slice(0, 40) ?? String(x);

/** Why a stored document of `kind` under `key` breaks the rules, or undefined. */
function storedProblem(kind: ResourceKind, key: string, doc: unknown): string | undefined {
  if (!ID_PATTERN.test(key)) return `the file name is not an ID (7 letters or digits)`;
  if (!isObject(doc) || !Array.isArray(doc.versions)) return 'expected {"versions": [...]}';
  let previous = 0;
  for (const [i, v] of doc.versions.entries()) {
    const where = `versions[${i}]`;
    if (!isObject(v)) return `${where} is not an object`;
    if (!Number.isInteger(v.version) || (v.version as number) <= previous) {
      return `${where} has version ${quote(v.version)}; versions must be whole numbers from 1 up, each greater than the one before`;
    }
    previous = v.version as number;
    if (v[kind.idField] !== key) return `${where} has ${kind.idField} ${quote(v[kind.idField])}, not the file's name ${key}`;
  }
  return undefined;
}

/** Why a stored results document breaks the rules, or undefined. */
function resultsProblem(key: string, doc: unknown): string | undefined {
  if (!RESULTS_KEY.test(key)) return 'the file name is not <datasetId>.v<version>';
  if (!isObject(doc) || !Array.isArray(doc.records) || !Array.isArray(doc.problems)) return 'expected {"records": [...], "problems": [...], ...}';
  return undefined;
}

/** Throws, naming the first file that breaks the rules of its collection. */
export function checkStoredShapes(store: Store, kinds: readonly ResourceKind[]): void {
  const fail = (collection: string, key: string, why: string) => {
    throw new Error(`data folder: ${collection}/${key}.json: ${why}; fix or move the file, then start again`);
  };
  for (const kind of kinds) {
    for (const [key, doc] of store.entries(kind.collection)) {
      const why = storedProblem(kind, key, doc);
      if (why) fail(kind.collection, key, why);
    }
  }
  for (const [key, doc] of store.entries('results')) {
    const why = resultsProblem(key, doc);
    if (why) fail('results', key, why);
  }
}
