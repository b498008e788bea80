// What pictures work out from a node's markup (its marker box, the text it
// shows, the text it writes beside itself), kept by markup, then by a short
// key of the rest: the markup strings are the topology's own, whose hash
// the engine keeps, where a key built from markup and size together would
// be a new string, hashed whole, for every node of every picture. Bounded:
// emptied when it holds MAX_MARKUPS markups.
const MAX_MARKUPS = 20_000;

export class MarkupCache<T> {
  private readonly byMarkup = new Map<string, Map<string, T>>();

  /** The value for `markup` and `key`, worked out by `compute` the first time. */
  get(markup: string, key: string, compute: () => T): T {
    let values = this.byMarkup.get(markup);
    const hit = values?.get(key);
    if (hit !== undefined) return hit;
    const value = compute();
    if (!values) {
      if (this.byMarkup.size >= MAX_MARKUPS) this.byMarkup.clear();
      this.byMarkup.set(markup, (values = new Map()));
    }
    values.set(key, value);
    return value;
  }
}
