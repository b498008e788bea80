// Builds stored documents and their file bytes, reusing the work of earlier
// writes. A document's versions array grows by one element per write: with
// 300 old versions, a write should cost the new version, not a copy, a
// serialization and a UTF-8 encoding of the whole history. The bytes are
// exactly those of canonicalJson (canonical-json.ts); tests hold them to it.

/** Bytes of a document-level array without its closing bracket, in a buffer later appends may share. */
type Head = { grown: Grown; length: number };
/** A buffer with room to append; `used` is how far any head reaches into it. */
type Grown = { buf: Buffer; used: number };

const isObject = (value: unknown): value is object => value !== null && typeof value === 'object';
/** Item separator and indentation of an element of a document-level array. */
const ITEM = '\n    ';

export class DocumentBuilder {
  private built = new WeakSet<object>();
  // A built array by its last element (an object), so that the array grown
  // from it by one element is recognised by identity, without copying or
  // serializing its old elements again.
  private lastOf = new WeakMap<object, readonly unknown[]>();
  // File bytes of document-level arrays, and for an array grown from one
  // whose bytes were made, that one's bytes (to append the new element to).
  private heads = new WeakMap<readonly unknown[], Head>();
  private headBefore = new WeakMap<readonly unknown[], Head>();

  /**
   * A frozen copy of `value` in canonical form, equal to what
   * JSON.parse(canonicalJson(value)) gives (so to what a restart reads back),
   * but reusing every part this builder made before. Parts are frozen so that
   * a caller mutating a stored document fails loudly instead of corrupting
   * memory and caches.
   */
  build<T>(value: T): T {
    return this.copy(value, false) as T;
  }

  /**
   * canonicalJson(doc) as UTF-8, in pieces to be written in order, for a
   * document this builder built. The large pieces are shared with the
   * builder's memo (no copy is made): they are never changed, but they must
   * not be changed by the caller either.
   */
  chunks(doc: unknown): Uint8Array[] {
    if (!isObject(doc) || Array.isArray(doc)) return [Buffer.from(indented(doc ?? null, 0) + '\n')];
    const record = doc as Record<string, unknown>;
    const keys = Object.keys(record).filter((key) => record[key] !== undefined);
    if (keys.length === 0) return [Buffer.from('{}\n')];
    const parts: Uint8Array[] = [];
    let text = '{';
    keys.forEach((key, i) => {
      const value = record[key];
      text += `${i > 0 ? ',' : ''}\n  ${JSON.stringify(key)}: `;
      if (Array.isArray(value) && value.length > 0 && this.built.has(value)) {
        const head = this.head(value);
        parts.push(Buffer.from(text), head.grown.buf.subarray(0, head.length));
        text = '\n  ]';
      } else text += indented(value, 1);
    });
    parts.push(Buffer.from(text + '\n}\n'));
    return parts;
  }

  /** The built array that `array` is with its last element dropped, if this builder made one. */
  private grownFrom(array: readonly unknown[]): readonly unknown[] | undefined {
    const before = array.length >= 2 ? array[array.length - 2] : undefined;
    const prior = isObject(before) ? this.lastOf.get(before) : undefined;
    if (!prior || prior.length !== array.length - 1) return undefined;
    for (let i = 0; i < prior.length; i++) if (prior[i] !== array[i]) return undefined;
    return prior;
  }

  private head(array: readonly unknown[]): Head {
    let head = this.heads.get(array);
    if (head) return head;
    const before = this.headBefore.get(array);
    if (before) head = append(before, `,${ITEM}${indented(array[array.length - 1] ?? null, 2)}`);
    else {
      const whole = indented(array, 1); // ends with the closing bracket on a line of its own
      const buf = Buffer.from(whole.slice(0, whole.lastIndexOf('\n')), 'utf8'); // exact size: most documents are not written again soon
      head = { grown: { buf, used: buf.length }, length: buf.length };
    }
    this.heads.set(array, head);
    this.headBefore.delete(array);
    return head;
  }

  private copy(value: unknown, inArray: boolean): unknown {
    switch (typeof value) {
      case 'string':
      case 'boolean':
        return value;
      case 'number':
        return Number.isFinite(value) ? (Object.is(value, -0) ? 0 : value) : null;
      case 'bigint':
        throw new TypeError('a BigInt has no JSON form');
      case 'object':
        break;
      default: // undefined, function, symbol: dropped from objects, null in arrays (as JSON.stringify does)
        return inArray ? null : undefined;
    }
    if (value === null) return null;
    if (this.built.has(value)) return value;
    if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
      return this.copy((value as { toJSON: () => unknown }).toJSON(), inArray);
    }
    let out: unknown;
    if (Array.isArray(value)) {
      const prior = this.grownFrom(value);
      out = prior ? [...prior, this.copy(value[value.length - 1], true)] : value.map((item) => this.copy(item, true));
      const last = (out as unknown[]).at(-1);
      if (isObject(last)) this.lastOf.set(last, out as unknown[]);
      // The prior array's entry is spent: its last element now sits inside the
      // grown array and would otherwise keep every older prefix array alive.
      // (Growing from it again, after a failed write, just takes the slow path.)
      if (prior) {
        this.lastOf.delete(prior[prior.length - 1] as object);
        const head = this.heads.get(prior);
        if (head) this.headBefore.set(out as unknown[], head);
      }
    } else {
      const keys = Object.keys(value).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const obj: Record<string, unknown> = {};
      for (const key of keys) {
        const v = this.copy((value as Record<string, unknown>)[key], false);
        if (v === undefined) continue;
        // defineProperty for "__proto__" keeps it a plain own key instead of setting the prototype.
        if (key === '__proto__') Object.defineProperty(obj, key, { value: v, enumerable: true, writable: true, configurable: true });
        else obj[key] = v;
      }
      out = obj;
    }
    Object.freeze(out);
    this.built.add(out as object);
    return out;
  }
}

/**
 * JSON.stringify(value, null, 2) as it reads nested at `depth`. A built value
 * is canonical (keys sorted, nothing undefined), so the native stringify gives
 * its text; every line break in it is structure (strings escape theirs), so
 * indenting it deeper is a replace.
 */
function indented(value: unknown, depth: number): string {
  const flat = JSON.stringify(value, null, 2);
  return depth === 0 || !isObject(value) ? flat : flat.replaceAll('\n', '\n' + '  '.repeat(depth));
}

/**
 * `head` with `text` appended. The bytes go in place when no other head
 * reaches past `head` in its buffer and there is room; otherwise into a new
 * buffer with half again as much room, so a run of appends costs each its
 * own bytes (amortized), as a growing array does.
 */
function append(head: Head, text: string): Head {
  const length = head.length + Buffer.byteLength(text);
  let grown = head.grown;
  if (grown.used !== head.length || length > grown.buf.length) {
    const buf = Buffer.allocUnsafeSlow(length + (length >> 1));
    grown.buf.copy(buf, 0, 0, head.length);
    grown = { buf, used: head.length };
  }
  grown.buf.write(text, head.length, 'utf8');
  grown.used = length;
  return { grown, length };
}
