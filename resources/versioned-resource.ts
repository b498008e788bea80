// One versioned resource (maps, datasets, templates) from a small
// declaration: its descriptor and how a revision becomes the stored content
// of a created or a next version. The generic part is the same for every
// resource: read the latest or an older version, serialize it, list, create
// under a fresh ID, append the next version with the summary of its change.
// Each resource's own rules (publishing, running a query, default templates) live
// in its file beside this one and build on what this returns.
import type { Store } from '../store/types.ts';
import { describeChange, type DiffOffload } from './changes.ts';
import { VersionedCollection, type Content } from './collection.ts';
import type { ListQuery, ResourceDescriptor, StoredVersion } from './types.ts';

/** Fields every list answers when `fields` is not given: the ID, the name and the stamps. */
const DEFAULT_LIST_FIELDS = ['name', 'version', 'lastUpdatedBy', 'lastUpdatedOn'] as const;

/** A resource's descriptor from its singular label ("map": collection maps, ID field mapId). */
export function describeResource(label: 'map' | 'dataset' | 'template', fields: readonly string[],
  extra: Pick<ResourceDescriptor, 'computedFields'> = {}): ResourceDescriptor {
  const idField = `${label}Id`;
  return { collection: `${label}s` as ResourceDescriptor['collection'], label, idField, fields, defaultFields: [idField, ...DEFAULT_LIST_FIELDS], ...extra };
}

/** A resource's own rules; `R` is its revision (what a client sends), `V` its stored version. */
export interface ResourceRules<R, P = void, V extends StoredVersion = StoredVersion> {
  descriptor: ResourceDescriptor;
  /** The content of version 1. */
  created: (revision: R) => Content | Promise<Content>;
  /**
   * Work an update does before it takes the resource's write turn (a
   * dataset runs its query), given the latest version as it is now; it may
   * fail fast (412, 422) first.
   */
  prepare?: (id: string, revision: R, ifMatch: string | undefined, latest: V) => Promise<P>;
  /** The content of the next version, from the revision and the latest version (inside the write turn). */
  updated: (revision: R, latest: V, prepared: P) => Content;
  /** Where the summary of a big change is worked out for the user who makes it (a dataset's: the render pool). */
  offload?: (by: string) => DiffOffload;
}

export function versionedResource<R, V extends StoredVersion, P = void>(store: Store, now: () => Date, rules: ResourceRules<R, P, V>) {
  const collection = new VersionedCollection<V>(store, rules.descriptor, now);
  return {
    collection,
    get: (id: string) => collection.get(id),
    at: (id: string, which: 'latest' | number = 'latest') => collection.at(id, which),
    // A method, so a resource of a typed version still serves where any version's resource is expected (the generic routes).
    serialized(version: V) {
      return collection.serialized(version);
    },
    list: (query: ListQuery) => collection.list(query),
    create: async (by: string, revision: R) => collection.create(by, await rules.created(revision)),
    /**
     * Appends the next version. `seen` is the latest version the caller has
     * just looked up (a route, for its 404 before reading the body): without
     * a preparation it is all the update reads before its write turn. With
     * one (a slow query run), the latest is read again after the body, so the
     * early If-Match check judges what is current. The summary of the change
     * (a dataset's: a diff of both versions' results) is worked out before
     * the write turn, and again inside it only when another write came
     * between; If-Match and the file on disk are checked inside it as ever.
     */
    async update(id: string, by: string, revision: R, ifMatch?: string, seen?: V) {
      const before = rules.prepare || !seen ? collection.get(id) : seen;
      const prepared = rules.prepare ? await rules.prepare(id, revision, ifMatch, before) : (undefined as P);
      const kind = rules.descriptor.collection;
      const offload = rules.offload?.(by);
      const summary = await describeChange(kind, store, before, rules.updated(revision, before, prepared), offload);
      return collection.appendLive(id, by, async (latest) => {
        const next = rules.updated(revision, latest, prepared);
        return { content: next, change: latest === before ? summary : await describeChange(kind, store, latest, next, offload) };
      }, { ifMatch, lookedUp: true });
    },
  };
}

export type VersionedResource<R = never, V extends StoredVersion = StoredVersion> = ReturnType<typeof versionedResource<R, V>>;
