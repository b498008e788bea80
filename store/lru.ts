// A small least-recently-used cache weighed in characters: the older versions
// and results read on demand stay here for a while, so repeated reads of one
// old version cost no disk, while memory stays bounded by `budget`, not by the
// history.

export class Lru<V> {
  private readonly items = new Map<string, { value: V; weight: number }>();
  private used = 0;

  constructor(private readonly budget: number) {}

  get(key: string): V | undefined {
    const item = this.items.get(key);
    if (!item) return undefined;
    this.items.delete(key); // re-inserted: Map order is recency order
    this.items.set(key, item);
    return item.value;
  }

  /** Keeps `value` unless it alone weighs more than a quarter of the budget. */
  set(key: string, value: V, weight: number): void {
    this.delete(key);
    if (weight > this.budget / 4) return;
    this.items.set(key, { value, weight });
    this.used += weight;
    for (const [oldest, item] of this.items) {
      if (this.used <= this.budget) break;
      this.items.delete(oldest);
      this.used -= item.weight;
    }
  }

  clear(): void {
    this.items.clear();
    this.used = 0;
  }

  delete(key: string): void {
    const item = this.items.get(key);
    if (!item) return;
    this.items.delete(key);
    this.used -= item.weight;
  }
}
