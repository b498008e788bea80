// The built-in provider's short-lived entries (interactions, codes, sessions
// nobody signed in to, pushed requests, replay markers) in this process's
// memory: the store's SharedEntries for a store that has none (the data
// folder, which one process owns). A shared store (PostgreSQL) keeps them in
// its database instead, so a sign-in begun on one replica ends on another.
//
// Bounds: interactions, anonymous sessions and pushed requests, the entries
// anyone can create, are kept at most `maxEntries` each (the oldest evicted
// first) and live `interactionTtlSeconds` (set as their TTL by provider.ts).
// Each kind's entries are a Map in write order, so expired ones are dropped
// from its head as new ones come, and lookups (by uid, user code, grant,
// account: whatever lookup values the writer gave) go through an index:
// nothing scans all entries on a request.
// Per client address (an entry's `owner`, the address the provider worked
// for: caller.ts), one address keeps at most `maxEntries / 100` (at least 10)
// of a kind: a flood from one address evicts its own entries first. An
// interaction whose login form was shown (`keep`) is evicted by the bound only
// when kept ones alone exceed it: anonymous starts cannot push out a sign-in
// under way.
import type { SharedEntries, SharedEntry } from '../../store/types.ts';

/** Kinds anyone can create entries of without a password: bounded in number. */
export const BOUNDED = new Set(['Interaction', 'Session', 'PushedAuthorizationRequest']);
/** The bounds of a kind for `maxEntries` (auth.oidc.maxInteractions): one address's share is a hundredth, at least 10. */
export const boundOf = (maxEntries: number) => ({ total: maxEntries, perOwner: Math.max(10, Math.floor(maxEntries / 100)) });

const nowSeconds = () => Math.floor(Date.now() / 1000);
const live = (e: SharedEntry | undefined, now = nowSeconds()): e is SharedEntry => !!e && (e.exp === undefined || e.exp > now);
const indexKey = (kind: string, name: string, value: string) => `${kind}\0${name}\0${value}`;
/** The entry's lookup value `name` (own properties only: names are data). */
const lookupOf = (e: SharedEntry, name: string) => (e.lookup && Object.hasOwn(e.lookup, name) ? e.lookup[name] : undefined);

export class MemoryEntries implements SharedEntries {
  /** Entries per kind, oldest write first. */
  private byKind = new Map<string, Map<string, SharedEntry>>();
  /** `${kind}\0${field}\0${value}` -> ids. */
  private index = new Map<string, Set<string>>();
  /** `${kind}\0${owner}` -> ids, oldest first. */
  private owned = new Map<string, Set<string>>();
  /** `${kind}\0${id}` of entries whose login form was shown. */
  private kept = new Set<string>();
  private readonly perOwner: number;

  constructor(private maxEntries: number) {
    this.perOwner = boundOf(maxEntries).perOwner;
  }

  /** Marks an entry as a sign-in under way: evicted by the bound only after every other. */
  keep(kind: string, id: string) {
    if (this.byKind.get(kind)?.has(id)) this.kept.add(`${kind}\0${id}`);
  }

  private live(kind: string, id: string): SharedEntry | undefined {
    const e = this.byKind.get(kind)?.get(id);
    return live(e) ? e : undefined;
  }

  async get(kind: string, id: string) {
    return this.live(kind, id);
  }

  async findBy(kind: string, name: string, value: string) {
    for (const id of this.index.get(indexKey(kind, name, value)) ?? []) {
      const e = this.live(kind, id);
      if (e && lookupOf(e, name) === value) return e;
    }
    return undefined;
  }

  async set(kind: string, id: string, entry: SharedEntry) {
    let map = this.byKind.get(kind);
    if (!map) this.byKind.set(kind, (map = new Map()));
    // Delete first so that the entry moves to the end: the map stays in write order (a kept one stays kept).
    const kept = this.kept.has(`${kind}\0${id}`);
    this.forget(kind, id);
    if (kept) this.kept.add(`${kind}\0${id}`);
    map.set(id, entry);
    this.indexEntry(kind, id, entry, true);
    if (entry.owner !== undefined && BOUNDED.has(kind)) this.own(kind, id, entry.owner);
    this.sweep(kind, map);
  }

  async delete(kind: string, id: string) {
    this.forget(kind, id);
  }

  /** A synchronous check-and-set: of parallel consumptions exactly one is 'consumed'. */
  async consume(kind: string, id: string, now: number) {
    const e = this.byKind.get(kind)?.get(id);
    if (!live(e)) return 'missing' as const;
    if (e.consumed !== undefined) return 'reused' as const;
    this.byKind.get(kind)!.set(id, { ...e, consumed: now });
    return 'consumed' as const;
  }

  async deleteWhere(name: string, value: string, kinds?: readonly string[]) {
    for (const kind of kinds ?? [...this.byKind.keys()]) {
      const map = this.byKind.get(kind);
      if (!map) continue;
      for (const id of [...(this.index.get(indexKey(kind, name, value)) ?? [])]) {
        const e = map.get(id);
        if (e && lookupOf(e, name) === value) this.forget(kind, id);
      }
    }
  }

  /** Entries held per kind (for tests and the benchmark). */
  counts(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [kind, map] of this.byKind) out[kind] = map.size;
    return out;
  }

  private forget(kind: string, id: string) {
    const map = this.byKind.get(kind);
    const e = map?.get(id);
    if (!map || !e) return;
    map.delete(id);
    this.indexEntry(kind, id, e, false);
    this.kept.delete(`${kind}\0${id}`);
    if (e.owner !== undefined) {
      const ids = this.owned.get(`${kind}\0${e.owner}`);
      ids?.delete(id);
      if (ids && !ids.size) this.owned.delete(`${kind}\0${e.owner}`);
    }
  }

  /** Records the owner's entry; beyond its share, its own oldest entry (not one whose form is shown) goes. */
  private own(kind: string, id: string, owner: string) {
    const key = `${kind}\0${owner}`;
    let ids = this.owned.get(key);
    if (!ids) this.owned.set(key, (ids = new Set()));
    ids.add(id);
    if (ids.size <= this.perOwner) return;
    for (const old of ids) {
      if (old === id || this.kept.has(`${kind}\0${old}`)) continue;
      this.forget(kind, old);
      if ((this.owned.get(key)?.size ?? 0) <= this.perOwner) return;
    }
  }

  private indexEntry(kind: string, id: string, e: SharedEntry, add: boolean) {
    for (const [name, value] of Object.entries(e.lookup ?? {})) {
      const k = indexKey(kind, name, value);
      let ids = this.index.get(k);
      if (add) {
        if (!ids) this.index.set(k, (ids = new Set()));
        ids.add(id);
      } else {
        ids?.delete(id);
        if (ids && !ids.size) this.index.delete(k);
      }
    }
  }

  /** Drops expired entries from the head of the kind's map, and the oldest beyond the bound. */
  private sweep(kind: string, map: Map<string, SharedEntry>) {
    const now = nowSeconds();
    for (const [id, e] of map) {
      if (live(e, now)) break;
      this.forget(kind, id);
    }
    if (!BOUNDED.has(kind)) return;
    // The oldest go first, those whose login form is shown only when they alone exceed the bound.
    for (const [id] of map) {
      if (map.size <= this.maxEntries) break;
      if (!this.kept.has(`${kind}\0${id}`)) this.forget(kind, id);
    }
    for (const [id] of map) {
      if (map.size <= this.maxEntries) break;
      this.forget(kind, id);
    }
  }
}
