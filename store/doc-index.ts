// The in-memory side of every adapter: documents by collection and key, plus
// a sorted key list and a cached entries() array so list routes over
// 10,000 documents do not sort or copy on every request. A stored document
// object is replaced (never mutated) on write, so callers may cache anything
// derived from it by object identity.
import type { Collection } from './types.ts';

const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

class Bucket {
  readonly docs = new Map<string, unknown>();
  /** Keys in code-unit order; null until first needed after a bulk load. */
  private keys: string[] | null = [];
  private entries: ReadonlyArray<readonly [string, unknown]> | null = null;

  set(key: string, doc: unknown): void {
    const isNew = !this.docs.has(key);
    this.docs.set(key, doc);
    if (isNew && this.keys) this.keys.splice(this.position(key), 0, key);
    this.entries = null;
  }

  /** Adds many documents at once (loading at open): one sort instead of one insertion each. */
  load(key: string, doc: unknown): void {
    this.docs.set(key, doc);
    this.keys = null;
    this.entries = null;
  }

  delete(key: string): void {
    if (!this.docs.delete(key)) return;
    if (this.keys) this.keys.splice(this.position(key), 1);
    this.entries = null;
  }

  list(): ReadonlyArray<readonly [string, unknown]> {
    if (!this.entries) {
      this.keys ??= [...this.docs.keys()].sort(byCodeUnit);
      // Frozen: the array is shared between callers until the next write.
      this.entries = Object.freeze(this.keys.map((key) => Object.freeze([key, this.docs.get(key)] as const)));
    }
    return this.entries;
  }

  /** Binary search: index of `key`, or where it would be inserted. */
  private position(key: string): number {
    const keys = this.keys!;
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (keys[mid] < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

export class DocIndex {
  private buckets = new Map<Collection, Bucket>();

  private bucket(collection: Collection): Bucket {
    let b = this.buckets.get(collection);
    if (!b) this.buckets.set(collection, (b = new Bucket()));
    return b;
  }

  get(collection: Collection, key: string): unknown {
    return this.bucket(collection).docs.get(key);
  }

  set(collection: Collection, key: string, doc: unknown): void {
    this.bucket(collection).set(key, doc);
  }

  load(collection: Collection, key: string, doc: unknown): void {
    this.bucket(collection).load(key, doc);
  }

  delete(collection: Collection, key: string): void {
    this.bucket(collection).delete(key);
  }

  /** Every [key, document] of a collection in key order; a shared, frozen array. */
  entries(collection: Collection): ReadonlyArray<readonly [string, unknown]> {
    return this.bucket(collection).list();
  }
}
