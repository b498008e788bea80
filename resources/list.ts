// List selection: which versions a list request shows, filtered, paged and
// cut down to the requested fields. Order: resources by ID ascending
// (code-unit order, as the store lists keys: digits, then A-Z, then a-z),
// and within one resource by version ascending. Deleted resources are left
// out, and so are the deletion versions of resources restored since.
// Latest versions come from memory; `version=all` or a number judges older
// versions on their outlines (what the store keeps of each version beside
// it: its short top-level fields), then streams the page, reading only its
// versions: memory and reads stay bounded by the page, never by the history.
import type { Outline } from '../store/types.ts';
import type { VersionedCollection } from './collection.ts';
import type { ListPage, ListQuery, StoredVersion, Visibility } from './types.ts';

/** Older versions read between two turns of the event loop. */
const YIELD_EVERY = 64;

/** Whether a resource's latest version makes it listable. */
export function visible(head: StoredVersion, visibility?: Visibility): boolean {
  return head.deleted !== true && (!visibility || visibility.resource(head));
}

function matches(version: StoredVersion, query: ListQuery, visibility?: Visibility): boolean {
  if (version.deleted === true || (visibility && !visibility.version(version))) return false;
  for (const [field, accepted] of query.filters) {
    if (!accepted.includes(version[field] as string | boolean)) return false;
  }
  return true;
}

/** Order of two field values: numbers and booleans by value, text by code unit, absent last. */
function compareValues(a: unknown, b: unknown): number {
  const absent = (x: unknown) => x === undefined || x === null;
  if (absent(a) || absent(b)) return absent(a) ? (absent(b) ? 0 : 1) : -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const [x, y] = [typeof a === 'string' ? a : JSON.stringify(a), typeof b === 'string' ? b : JSON.stringify(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Sorts `items` by `query.sort` (stable: ties keep the ID-then-version order they arrive in). */
function sorted<T>(items: T[], query: ListQuery, key: (item: T, field: string) => unknown): T[] {
  const sort = query.sort ?? [];
  if (sort.length === 0) return items;
  return items.map((item, i) => ({ item, i })).sort((p, q) => {
    for (const [field, direction] of sort) {
      const c = compareValues(key(p.item, field), key(q.item, field));
      if (c !== 0) return c * direction;
    }
    return p.i - q.i;
  }).map(({ item }) => item);
}

export async function listPage(col: VersionedCollection, query: ListQuery, visibility?: Visibility): Promise<ListPage> {
  const { descriptor: kind, store } = col;
  const computed = kind.computedFields ?? [];
  const needsShown = query.fields.some((f) => computed.includes(f));
  const project = async (version: StoredVersion) => {
    const source: Record<string, unknown> = needsShown ? await col.shown(version) : version;
    const item: Record<string, unknown> = {};
    for (const field of query.fields) item[field] = source[field] ?? null;
    return item;
  };
  const end = query.limit === undefined ? undefined : query.offset + query.limit;

  if (query.version === 'latest') {
    const hits = sorted(col.live(visibility).filter((v) => matches(v, query, visibility)), query, (v, f) => v[f]);
    const items = [];
    for (const version of hits.slice(query.offset, end)) items.push(await project(version));
    return { body: JSON.stringify(items), total: hits.length };
  }

  const read = (id: string, n: number) => store.read<StoredVersion>(kind.collection, id, n);
  type Ref = { id: string; n: number; keys: unknown[] };
  let refs: Ref[] = [];
  const sortFields = (query.sort ?? []).map(([field]) => field);
  // Filters, sort keys and visibility ('public') are judged on the versions' outlines: only a
  // version without one (unreadable) or whose outline leaves out a field asked for is read here.
  const needed = [...new Set(['deleted', 'public', ...query.filters.map(([field]) => field), ...sortFields])];
  /** What a version is judged on: its outline's fields when they hold every field needed. */
  const judged = (outline: Outline | undefined) => (outline && !needed.some((f) => outline.omitted.includes(f)) ? outline.fields : undefined);
  let reads = 0;
  for (const head of col.live(visibility)) {
    const id = String(head[kind.idField]);
    const numbers = store.versions(kind.collection, id);
    const wanted = query.version === 'all' ? numbers : numbers.includes(query.version) ? [query.version] : [];
    const outlines = wanted.some((n) => n !== head.version) ? await store.outlines(kind.collection, id) : undefined;
    for (const n of wanted) {
      let version: StoredVersion | Outline['fields'] | undefined = n === head.version ? head : judged(outlines?.get(n));
      if (!version) {
        // Reads served from the cache never wait for I/O: let other requests in now and then.
        if (++reads % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
        version = await read(id, n);
      }
      if (!version || !matches(version as StoredVersion, query, visibility)) continue;
      refs.push({ id, n, keys: sortFields.map((f) => version[f]) });
    }
  }
  refs = sorted(refs, query, (ref, field) => ref.keys[sortFields.indexOf(field)]);
  const page = refs.slice(query.offset, end);
  return {
    total: refs.length,
    async *stream() {
      yield '[';
      for (const [i, ref] of page.entries()) {
        if (i % YIELD_EVERY === YIELD_EVERY - 1) await new Promise((resolve) => setImmediate(resolve));
        const version = await read(ref.id, ref.n);
        if (version) yield `${i > 0 ? ',' : ''}${JSON.stringify(await project(version))}`;
      }
      yield ']';
    },
  };
}
