// A versioned collection over the Store: create (fresh random ID), append a
// new immutable version (serialized per resource by store.update), get the
// latest or a given version, and list. Also keeps the caches that make reads
// cheap: the serialized body + ETag of each version object (the store hands
// out a new object per write, so identity is a safe key), and list bodies per
// normalized query, dropped whenever the collection's generation moves on.
import { notFound, preconditionFailed } from '../errors.ts';
import { ID_PATTERN } from '../schema/common.ts';
import type { Json, Store } from '../store/types.ts';
import { newId } from './ids.ts';
import { findVersion, selectList } from './list.ts';
import type { ListPage, ListQuery, ResourceKind, Serialized, StoredResource, StoredVersion, Visibility } from './types.ts';

/** Bounds on cached list bodies per collection, so varied or huge queries cannot grow memory without end. */
const MAX_CACHED_LISTS = 256;
const MAX_CACHED_CHARS = 64 * 1024 * 1024;
const CREATE_ATTEMPTS = 8;

class IdTaken extends Error {}

export type Content = { [key: string]: Json | undefined };

export class VersionedCollection {
  /** Bumped after every write; list caches of older generations are stale. */
  generation = 0;
  private views = new WeakMap<object, Serialized>();
  private lists = { generation: 0, chars: 0, pages: new Map<string, ListPage>() };
  /** Normalized cache keys of query objects already seen (routes reuse parsed queries). */
  private keys = new WeakMap<ListQuery, string>();

  constructor(
    private readonly store: Store,
    readonly kind: ResourceKind,
    private readonly now: () => Date,
  ) {}

  private doc(id: string): StoredResource | undefined {
    if (!ID_PATTERN.test(id)) return undefined; // never let a malformed ID reach the store
    return this.store.get<StoredResource>(this.kind.collection, id);
  }

  exists(id: string): boolean {
    return this.doc(id) !== undefined;
  }

  /** The latest version, or version `n`; 404 when either is missing. */
  get(id: string, which: 'latest' | number = 'latest'): StoredVersion {
    const doc = this.doc(id);
    const latest = doc?.versions[doc.versions.length - 1];
    if (!doc || !latest) throw notFound(`no ${this.kind.label} with ID ${id}`);
    if (which === 'latest') return latest;
    const found = findVersion(doc, which);
    if (!found) throw notFound(`${this.kind.label} ${id} has no version ${which}; its latest version is ${latest.version}`);
    return found;
  }

  etag(version: StoredVersion): string {
    return `"${String(version[this.kind.idField])}-v${version.version}"`;
  }

  /** The body and ETag of one version, serialized once per stored object. */
  view(version: StoredVersion): Serialized {
    let cached = this.views.get(version);
    if (!cached) {
      const shown = this.kind.present ? this.kind.present(version) : version;
      cached = { body: JSON.stringify(shown), etag: this.etag(version) };
      this.views.set(version, cached);
    }
    return cached;
  }

  /** 412 unless If-Match names the latest version (or is `*`). Strong comparison, as RFC 9110 asks. */
  checkMatch(id: string, latest: StoredVersion, ifMatch: string | undefined): void {
    if (ifMatch === undefined) return;
    const tags = ifMatch.split(',').map((t) => t.trim());
    const current = this.etag(latest);
    if (tags.includes('*') || tags.includes(current)) return;
    throw preconditionFailed(
      `${this.kind.label} ${id} has changed: its latest version is ${latest.version} (ETag ${current}), not the one in If-Match; reload it and apply the change again`,
    );
  }

  private stamp(id: string, content: Content, version: number, by: string): StoredVersion {
    return {
      ...(content as { [key: string]: Json }),
      [this.kind.idField]: id,
      version,
      lastUpdatedBy: by,
      lastUpdatedOn: this.now().toISOString(),
    } as StoredVersion;
  }

  // IDs already used, lower-cased. Data folders are committed to git and
  // checked out on case-insensitive file systems (macOS, Windows), where
  // "abC1234.json" and "ABc1234.json" would be one file: a new ID must differ
  // from every existing one by more than case.
  private foldedIds?: Set<string>;

  private takenIgnoringCase(id: string): boolean {
    this.foldedIds ??= new Set(this.store.entries(this.kind.collection).map(([key]) => key.toLowerCase()));
    return this.foldedIds.has(id.toLowerCase());
  }

  /** Stores version 1 of a new resource under a fresh ID. */
  async create(by: string, content: Content): Promise<StoredVersion> {
    try {
      for (let attempt = 0; attempt < CREATE_ATTEMPTS; attempt++) {
        const id = newId();
        if (this.takenIgnoringCase(id)) continue;
        try {
          const doc = await this.store.update<StoredResource>(this.kind.collection, id, (current) => {
            if (current !== undefined) throw new IdTaken();
            return { versions: [this.stamp(id, content, 1, by)] };
          });
          this.foldedIds?.add(id.toLowerCase());
          return doc.versions[0];
        } catch (e) {
          if (!(e instanceof IdTaken)) throw e;
        }
      }
      throw new Error(`no free ${this.kind.label} ID after ${CREATE_ATTEMPTS} attempts`);
    } finally {
      this.generation++;
    }
  }

  /**
   * Appends version latest+1. `make` sees the latest version and the new
   * number and returns the content; it runs inside the per-resource write
   * turn, so concurrent appends get consecutive numbers and If-Match is
   * checked against what is really the latest.
   */
  async append(
    id: string,
    by: string,
    make: (latest: StoredVersion, next: number) => Content | Promise<Content>,
    options: { ifMatch?: string } = {},
  ): Promise<StoredVersion> {
    this.get(id); // 404 before taking the write turn
    try {
      const doc = await this.store.update<StoredResource>(this.kind.collection, id, async (current) => {
        const latest = current?.versions[current.versions.length - 1];
        if (!current || !latest) throw notFound(`no ${this.kind.label} with ID ${id}`);
        this.checkMatch(id, latest, options.ifMatch);
        const next = latest.version + 1;
        const content = await make(latest, next);
        return { versions: [...current.versions, this.stamp(id, content, next, by)] };
      });
      return doc.versions[doc.versions.length - 1];
    } finally {
      this.generation++;
    }
  }

  /** A list body, cached per normalized query until the next write. */
  list(query: ListQuery, visibility?: Visibility): ListPage {
    if (this.lists.generation !== this.generation) {
      this.lists = { generation: this.generation, chars: 0, pages: new Map() };
    }
    let normalized = this.keys.get(query);
    if (normalized === undefined) this.keys.set(query, (normalized = normalize(query)));
    const key = `${visibility?.name ?? ''}|${normalized}`;
    let page = this.lists.pages.get(key);
    if (!page) {
      const entries = this.store.entries<StoredResource>(this.kind.collection);
      const { items, total } = selectList(entries, this.kind, query, visibility);
      page = { body: JSON.stringify(items), total };
      const size = page.body.length;
      if (size <= MAX_CACHED_CHARS / 4) {
        if (this.lists.pages.size >= MAX_CACHED_LISTS || this.lists.chars + size > MAX_CACHED_CHARS) {
          this.lists = { generation: this.generation, chars: 0, pages: new Map() };
        }
        this.lists.pages.set(key, page);
        this.lists.chars += size;
      }
    }
    return page;
  }
}

/** Same request, same key: filter values sorted, filters sorted by name. */
function normalize(q: ListQuery): string {
  const filters = q.filters
    .map(([field, values]) => [field, [...new Set(values.map((x) => JSON.stringify(x)))].sort()] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([q.version, q.fields, filters, q.limit ?? null, q.offset]);
}

/** The content of a version without its stamps (to copy it into the next one). */
export function contentOf(version: StoredVersion): Content {
  const { version: _v, lastUpdatedBy: _b, lastUpdatedOn: _o, ...content } = version;
  return content;
}
