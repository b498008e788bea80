// List selection, pure: which versions a list request shows, filtered, paged
// and cut down to the requested fields. Order: resources by ID ascending
// (code-unit order, as the store lists keys: digits, then A-Z, then a-z),
// and within one resource by version ascending.
import type { ListQuery, ResourceKind, StoredResource, StoredVersion, Visibility } from './types.ts';

/** The version `n` of a resource, or undefined. Versions are contiguous from 1, so the index is tried first. */
export function findVersion(doc: StoredResource, n: number): StoredVersion | undefined {
  const guess = doc.versions[n - 1];
  if (guess?.version === n) return guess;
  return doc.versions.find((x) => x.version === n);
}

function chosenVersions(doc: StoredResource, query: ListQuery, visibility?: Visibility): StoredVersion[] {
  const latest = doc.versions[doc.versions.length - 1];
  if (!latest) return [];
  if (visibility && !visibility.resource(latest)) return [];
  let picked: StoredVersion[];
  if (query.version === 'latest') picked = [latest];
  else if (query.version === 'all') picked = doc.versions;
  else {
    const one = findVersion(doc, query.version);
    picked = one ? [one] : [];
  }
  return visibility ? picked.filter(visibility.version) : picked;
}

function matches(version: StoredVersion, query: ListQuery): boolean {
  for (const [field, accepted] of query.filters) {
    if (!accepted.includes(version[field] as string | boolean)) return false;
  }
  return true;
}

export function selectList(
  entries: ReadonlyArray<readonly [string, StoredResource]>,
  kind: ResourceKind,
  query: ListQuery,
  visibility?: Visibility,
): { items: Record<string, unknown>[]; total: number } {
  const hits: StoredVersion[] = [];
  for (const [, doc] of entries) {
    for (const version of chosenVersions(doc, query, visibility)) {
      if (matches(version, query)) hits.push(version);
    }
  }
  const end = query.limit === undefined ? undefined : query.offset + query.limit;
  const page = hits.slice(query.offset, end);
  const computed = kind.computedFields ?? [];
  const needsPresent = kind.present !== undefined && query.fields.some((f) => computed.includes(f));
  const items = page.map((version) => {
    const source: Record<string, unknown> = needsPresent ? kind.present!(version) : version;
    const item: Record<string, unknown> = {};
    for (const field of query.fields) item[field] = source[field] ?? null;
    return item;
  });
  return { items, total: hits.length };
}
