// What a resource's history offers beyond plain versions (docs/api.md: History):
// the list of versions newest first, deletion as a tombstone version,
// restore and revert as new versions. All of it goes through
// VersionedCollection.append, so numbering, If-Match and the per-resource
// write turn are those of every other write.
import { conflict, notFound } from '../errors.ts';
import { contentOf, type VersionedCollection } from './collection.ts';
import type { StoredVersion } from './types.ts';

/** One line of a history. */
export interface HistoryItem {
  version: number;
  lastUpdatedBy: string;
  lastUpdatedOn: string;
  public?: boolean;
  deleted?: true;
  summary: string;
}

function historyItem(v: StoredVersion): HistoryItem {
  return {
    version: v.version,
    lastUpdatedBy: v.lastUpdatedBy,
    lastUpdatedOn: v.lastUpdatedOn,
    ...(typeof v.public === 'boolean' ? { public: v.public } : {}),
    ...(v.deleted === true ? { deleted: true as const } : {}),
    // Versions written before summaries existed say what they can.
    summary: typeof v.change === 'string' ? v.change : v.version === 1 ? 'created' : 'updated',
  };
}

/** The fields of a history line: a version whose outline holds them all is not read. */
const ITEM_FIELDS: readonly string[] = ['version', 'lastUpdatedBy', 'lastUpdatedOn', 'public', 'deleted', 'change'];

/** A page of the history, newest first, from the versions' outlines (a version is read only where its outline leaves out a field); the total is every version. */
export function historyPage(col: VersionedCollection, id: string, offset: number, limit: number | undefined) {
  const numbers = col.versionNumbers(id);
  const newestFirst = [...numbers].reverse().slice(offset, limit === undefined ? undefined : offset + limit);
  return {
    total: numbers.length,
    async *stream() {
      const outlines = await col.store.outlines(col.descriptor.collection, id);
      yield '[';
      for (const [i, n] of newestFirst.entries()) {
        // Cached reads never wait for I/O: let other requests in now and then.
        if (i % 64 === 63) await new Promise((resolve) => setImmediate(resolve));
        const outline = outlines.get(n);
        const version = outline && !ITEM_FIELDS.some((f) => outline.omitted.includes(f)) ? (outline.fields as StoredVersion) : await col.anyVersion(id, n);
        yield `${i > 0 ? ',' : ''}${JSON.stringify(historyItem(version))}`;
      }
      yield ']';
    },
  };
}

/** What a DELETE answers: the tombstone, with its stamps. */
export function tombstoneView(col: VersionedCollection, v: StoredVersion) {
  const idField = col.descriptor.idField;
  return { [idField]: v[idField], version: v.version, lastUpdatedBy: v.lastUpdatedBy, lastUpdatedOn: v.lastUpdatedOn, deleted: true };
}

/** Writes a tombstone; 409 naming the maps when `usedBy` finds live maps that still use the resource. */
export async function remove(col: VersionedCollection, id: string, by: string, ifMatch: string | undefined,
  usedBy?: (id: string) => string[]): Promise<StoredVersion> {
  col.get(id); // 404 for unknown or already deleted
  const users = usedBy?.(id) ?? [];
  if (users.length > 0) {
    throw conflict(`${col.descriptor.label} ${id} is used by map${users.length > 1 ? 's' : ''} ${users.join(', ')}; ` +
      `remove it from ${users.length > 1 ? 'those maps' : 'that map'} first`);
  }
  return col.append(id, by, () => ({ content: {}, change: 'deleted', deleted: true }), { ifMatch });
}

/** The latest version before `before` that is not a deletion. */
async function lastLive(col: VersionedCollection, id: string, before: number): Promise<StoredVersion> {
  const numbers = col.versionNumbers(id).filter((n) => n < before);
  for (let i = numbers.length - 1; i >= 0; i--) {
    const v = await col.anyVersion(id, numbers[i]);
    if (v.deleted !== true) return v;
  }
  throw notFound(`${col.descriptor.label} ${id} has no version to restore`);
}

/**
 * Brings a deleted resource back as a new version with the content it had
 * before deletion; 409 when it is not deleted. `adjust` changes the content
 * first (a restored map comes back unpublished).
 */
export async function restore(col: VersionedCollection, id: string, by: string, adjust = (c: ReturnType<typeof contentOf>) => c) {
  const head = col.head(id);
  if (!head) throw notFound(`no ${col.descriptor.label} with ID ${id}`);
  if (head.deleted !== true) throw conflict(`${col.descriptor.label} ${id} is not deleted; its latest version is ${head.version}`);
  const source = await lastLive(col, id, head.version);
  return col.append(id, by, (latest) => {
    if (latest.deleted !== true) throw conflict(`${col.descriptor.label} ${id} is not deleted; its latest version is ${latest.version}`);
    return { content: adjust(contentOf(source)), change: `restored (the content of version ${source.version})` };
  }, { whenDeleted: true });
}

/** A new version with version `n`'s content; `adjust` may keep parts of the latest (a map's public flag). */
export async function revert(col: VersionedCollection, id: string, by: string, n: number, ifMatch: string | undefined,
  adjust = (content: ReturnType<typeof contentOf>, _latest: StoredVersion) => content) {
  const source = await col.at(id, n);
  return col.append(id, by, (latest) => ({ content: adjust(contentOf(source), latest), change: `reverted to version ${n}` }), { ifMatch });
}
