// A versioned collection over the Store's logs: create (fresh random ID),
// append a new immutable version (serialized per resource by the store), get
// the latest (memory) or an older version (read on demand), delete as a
// tombstone version, and list. Also keeps the caches that make reads cheap:
// the serialized body + ETag of each version object (the store hands out a
// new object per write, so identity is a safe key), and list bodies of the
// latest versions per normalized query, dropped whenever the collection's
// generation moves on.
import { notFound, preconditionFailed, ServiceError } from '../errors.ts';
import { ID_PATTERN } from '../schema/common.ts';
import type { Store } from '../store/types.ts';
import { newId } from './ids.ts';
import { listPage, visible } from './list.ts';
import type { ListPage, ListQuery, ResourceDescriptor, Serialized, StoredVersion, Tombstone, Visibility } from './types.ts';

/** Bounds on cached list bodies per collection, so varied or huge queries cannot grow memory without end. */
const MAX_CACHED_LISTS = 256;
const MAX_CACHED_CHARS = 64 * 1024 * 1024;
const CREATE_ATTEMPTS = 8;

class IdTaken extends Error {}

/** What an append's `make` returns: the next version's content and the summary of its change. */
type Made = { content: Content; change: string; deleted?: boolean };
/** Makes the next version from the latest (a tombstone only when the append allows a deleted resource). */
type Maker<V, M> = (latest: V | Tombstone, next: number) => Promise<M> | M;
type AppendOptions = { ifMatch?: string; whenDeleted?: boolean; lookedUp?: boolean };

/** Stamps the store of versions adds; never part of a version's content. */
const STAMPS = ['version', 'lastUpdatedBy', 'lastUpdatedOn', 'change', 'deleted'] as const;

/** What a version holds besides its stamps (JSON once stored). */
export type Content = { [key: string]: unknown };
/** The content of a stored version of type `V`: its fields without the stamps. */
export type ContentOf<V> = Omit<V, (typeof STAMPS)[number]>;

/**
 * The versions of one kind of resource; `V` is its stored version (StoredMap,
 * StoredDataset, StoredTemplate), or StoredVersion where the kind is not known.
 */
export class VersionedCollection<V extends StoredVersion = StoredVersion> {
  /** Bumped after every write; list caches of older generations are stale. */
  generation = 0;
  private serializedCache = new WeakMap<object, Serialized | Promise<Serialized>>();
  private lists = { generation: 0, chars: 0, pages: new Map<string, ListPage>() };
  private seenHeads: unknown;
  /** Normalized cache keys of query objects already seen (routes reuse parsed queries). */
  private keys = new WeakMap<ListQuery, string>();

  constructor(
    readonly store: Store,
    readonly descriptor: ResourceDescriptor,
    private readonly now: () => Date,
  ) {}

  /** The latest stored version, tombstones included; undefined when there is none. */
  head(id: string): V | Tombstone | undefined {
    if (!ID_PATTERN.test(id)) return undefined; // never let a malformed ID reach the store
    const head = this.store.head<V | Tombstone>(this.descriptor.collection, id);
    if (head && head[this.descriptor.idField] !== id) throw new ServiceError('resource_unavailable', misfiled(this.descriptor, id, head));
    return head;
  }

  /** Whether a resource exists and is not deleted. */
  exists(id: string): boolean {
    const head = this.head(id);
    return head !== undefined && head.deleted !== true;
  }

  private missing(id: string) {
    const head = this.head(id);
    return notFound(head?.deleted === true
      ? `${this.descriptor.label} ${id} was deleted (version ${head.version}); its history and restore remain`
      : `no ${this.descriptor.label} with ID ${id}`);
  }

  /** The latest version; 404 when missing or deleted. */
  get(id: string): V {
    const head = this.head(id);
    if (!head || head.deleted === true) throw this.missing(id);
    return head;
  }

  /** The latest version or version `n` of a resource that is not deleted; 404 when either is missing. */
  async at(id: string, which: 'latest' | number = 'latest'): Promise<V> {
    const latest = this.get(id);
    if (which === 'latest' || which === latest.version) return latest;
    const found = await this.store.read<V | Tombstone>(this.descriptor.collection, id, which);
    if (!found || found.deleted === true) {
      throw notFound(`${this.descriptor.label} ${id} has no version ${which}${found ? ' (it is a deletion)' : ''}; its latest version is ${latest.version}`);
    }
    return found;
  }

  /** Any stored version, tombstones included (history, diff, revert); 404 when absent. */
  async anyVersion(id: string, n: number): Promise<V | Tombstone> {
    const found = this.head(id) && (await this.store.read<V | Tombstone>(this.descriptor.collection, id, n));
    if (!found) throw notFound(`${this.descriptor.label} ${id} has no version ${n}`);
    return found;
  }

  /** Version numbers of a resource, ascending (deleted ones included); 404 for an unknown ID. */
  versionNumbers(id: string): readonly number[] {
    if (!this.head(id)) throw notFound(`no ${this.descriptor.label} with ID ${id}`);
    return this.store.versions(this.descriptor.collection, id);
  }

  etag(version: StoredVersion): string {
    return `"${String(version[this.descriptor.idField])}-v${version.version}"`;
  }

  /** What clients see of a version: its fields without the history stamps. */
  shown(version: StoredVersion): Record<string, unknown> | Promise<Record<string, unknown>> {
    const { change: _c, deleted: _d, ...plain } = version;
    return this.descriptor.present ? this.descriptor.present(plain as StoredVersion) : plain;
  }

  /**
   * The body and ETag of one version, serialized once per stored object; at
   * once when nothing has to be read for it (a GET by ID then answers
   * without a trip through the event loop).
   */
  serialized(version: StoredVersion): Serialized | Promise<Serialized> {
    const cached = this.serializedCache.get(version);
    if (cached) return cached;
    const make = (shown: Record<string, unknown>): Serialized => {
      const made = { body: JSON.stringify(shown), etag: this.etag(version) };
      this.serializedCache.set(version, made);
      return made;
    };
    const shown = this.shown(version);
    if (!(shown instanceof Promise)) return make(shown);
    const pending = shown.then(make);
    this.serializedCache.set(version, pending);
    pending.catch(() => this.serializedCache.delete(version));
    return pending;
  }

  /** 412 unless If-Match names the latest version (or is `*`). Strong comparison, as RFC 9110 asks. */
  checkMatch(id: string, latest: StoredVersion, ifMatch: string | undefined): void {
    if (ifMatch === undefined) return;
    const tags = ifMatch.split(',').map((t) => t.trim());
    const current = this.etag(latest);
    if (tags.includes('*') || tags.includes(current)) return;
    throw preconditionFailed(
      `${this.descriptor.label} ${id} has changed: its latest version is ${latest.version} (ETag ${current}), not the one in If-Match; reload it and apply the change again`,
    );
  }

  // The ID field's name is known at run time only (the descriptor), so the stamped object is declared to be a `V`.
  private stamp(id: string, content: Content, version: number, by: string, change: string): V {
    return {
      ...content,
      [this.descriptor.idField]: id,
      version,
      lastUpdatedBy: by,
      lastUpdatedOn: this.now().toISOString(),
      change,
    } as V;
  }

  // IDs already used, lower-cased. Data folders are committed to git and
  // checked out on case-insensitive file systems (macOS, Windows), where
  // "abC1234" and "ABc1234" would be one folder: a new ID must differ from
  // every existing one by more than case.
  private foldedIds?: Set<string>;

  private takenIgnoringCase(id: string): boolean {
    this.foldedIds ??= new Set(this.store.heads(this.descriptor.collection).map(([key]) => key.toLowerCase()));
    return this.foldedIds.has(id.toLowerCase()) || this.store.versions(this.descriptor.collection, id).length > 0;
  }

  /** Stores version 1 of a new resource under a fresh ID. */
  async create(by: string, content: ContentOf<V> | Content): Promise<V> {
    try {
      for (let attempt = 0; attempt < CREATE_ATTEMPTS; attempt++) {
        const id = newId();
        if (this.takenIgnoringCase(id)) continue;
        try {
          const stored = await this.store.append<V>(this.descriptor.collection, id, (head) => {
            if (head !== undefined) throw new IdTaken();
            return this.stamp(id, content, 1, by, 'created');
          });
          this.foldedIds?.add(id.toLowerCase());
          return stored;
        } catch (e) {
          if (!(e instanceof IdTaken)) throw e;
        }
      }
      throw new Error(`no free ${this.descriptor.label} ID after ${CREATE_ATTEMPTS} attempts`);
    } finally {
      this.generation++;
    }
  }

  /**
   * Appends version latest+1. `make` sees the latest version and the new
   * number and returns the content and a summary of the change; it runs
   * inside the per-resource write turn, so concurrent appends get consecutive
   * numbers and If-Match is checked against what is really the latest. A
   * deleted resource is 404 unless `whenDeleted` allows it (restore, delete);
   * `lookedUp`: the caller has just read the latest version (its own 404).
   */
  async append(id: string, by: string, make: Maker<V, Made>, options: AppendOptions = {}): Promise<V | Tombstone> {
    // 404 before taking the write turn, unless the caller has just looked the resource up.
    if (!options.whenDeleted && !options.lookedUp) this.get(id);
    try {
      const stored = await this.store.append<V | Tombstone>(this.descriptor.collection, id, async (latest) => {
        if (!latest || (latest.deleted === true && !options.whenDeleted)) throw this.missing(id);
        this.checkMatch(id, latest, options.ifMatch);
        const next = latest.version + 1;
        const made = await make(latest, next);
        const stamped = this.stamp(id, made.content, next, by, made.change);
        return made.deleted ? { ...stamped, deleted: true } : stamped;
      });
      return stored;
    } finally {
      this.generation++;
    }
  }

  /**
   * An append to a resource that is not deleted and that stays so (an
   * update, a publish, a refresh): `make` sees, and the append answers, a
   * version with content.
   */
  async appendLive(id: string, by: string, make: (latest: V, next: number) => Promise<Made> | Made,
    options: { ifMatch?: string; lookedUp?: boolean } = {}): Promise<V> {
    const live = (version: V | Tombstone): V => {
      if (version.deleted === true) throw this.missing(id); // append refuses a deleted resource before `make`
      return version;
    };
    return live(await this.append(id, by, (latest, next) => make(live(latest), next), options));
  }

  /** A list body; the latest versions' are cached per normalized query until the next write. */
  async list(query: ListQuery, visibility?: Visibility): Promise<ListPage> {
    if (query.version !== 'latest') return listPage(this, query, visibility);
    // Writes of other replicas (a shared store) change the heads without this collection's writes:
    // the store hands out a new heads array after any change, so a new one is a new generation too.
    const heads = this.store.heads(this.descriptor.collection);
    if (heads !== this.seenHeads) {
      this.seenHeads = heads;
      this.generation++;
    }
    if (this.lists.generation !== this.generation) {
      this.lists = { generation: this.generation, chars: 0, pages: new Map() };
    }
    let normalized = this.keys.get(query);
    if (normalized === undefined) this.keys.set(query, (normalized = normalize(query)));
    const key = `${visibility?.name ?? ''}|${normalized}`;
    let page = this.lists.pages.get(key);
    if (!page) {
      const generation = this.generation;
      page = await listPage(this, query, visibility);
      const size = page.body?.length ?? Infinity;
      if (generation === this.generation && size <= MAX_CACHED_CHARS / 4) {
        if (this.lists.pages.size >= MAX_CACHED_LISTS || this.lists.chars + size > MAX_CACHED_CHARS) {
          this.lists = { generation: this.generation, chars: 0, pages: new Map() };
        }
        this.lists.pages.set(key, page);
        this.lists.chars += size;
      }
    }
    return page;
  }

  /** The latest versions of resources that are not deleted (and pass `visibility`), in ID order. */
  live(visibility?: Visibility): V[] {
    return this.store.heads<V | Tombstone>(this.descriptor.collection)
      .flatMap(([key, head]) => (head.deleted !== true && visible(head, visibility) && head[this.descriptor.idField] === key ? [head] : []));
  }
}

/** Why a resource whose latest version names another ID is not served (a file copied or moved by hand). */
export function misfiled(kind: ResourceDescriptor, id: string, head: StoredVersion): string {
  return `${kind.collection}/${id}/v${head.version}.json holds ${kind.idField} ${JSON.stringify(head[kind.idField])?.slice(0, 40)}, ` +
    `not the name of its folder, ${id}; repair or move the folder and restart the service`;
}

/** Same request, same key: filter values sorted, filters sorted by name. */
function normalize(q: ListQuery): string {
  const filters = q.filters
    .map(([field, values]) => [field, [...new Set(values.map((x) => JSON.stringify(x)))].sort()] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([q.version, q.fields, filters, q.limit ?? null, q.offset, q.sort ?? []]);
}

/** The content of a version without its stamps (to copy it into the next one). */
export function contentOf<V extends StoredVersion>(version: V): ContentOf<V> {
  const { version: _v, lastUpdatedBy: _by, lastUpdatedOn: _on, change: _c, deleted: _d, ...content } = version;
  return content;
}
