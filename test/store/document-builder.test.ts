// The stored bytes of a document are exactly canonicalJson of it as UTF-8,
// also when parts of them come from the builder's memo of earlier writes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalJson } from '../../store/canonical-json.ts';
import { DocumentBuilder } from '../../store/document-builder.ts';

// A deterministic generator of awkward JSON values.
function* values(seed: number): Generator<unknown> {
  let x = seed;
  const rnd = () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const make = (depth: number): unknown => {
    const r = rnd();
    if (depth > 3 || r < 0.3) {
      return [null, true, false, 0, -0, 1.5e300, -7, 'text', '', 'quote " and \\ and \n', '\u2028', '__proto__', NaN, undefined, 'Zürich → 東京 🛰'][Math.floor(rnd() * 15)];
    }
    if (r < 0.6) return Array.from({ length: Math.floor(rnd() * 4) }, () => make(depth + 1));
    const obj: Record<string, unknown> = {};
    for (const key of ['b', 'a', '10', '2', 'z z', 'constructor'].slice(0, Math.floor(rnd() * 6))) obj[key] = make(depth + 1);
    return obj;
  };
  for (;;) yield make(0);
}

/** The file bytes the builder gives for `doc`, its chunks joined. */
const bytesOf = (builder: DocumentBuilder, doc: unknown) => Buffer.concat(builder.chunks(doc));
/** What the file of `value` must hold. */
const expected = (value: unknown) => Buffer.from(canonicalJson(value), 'utf8');
type Doc = { versions: unknown[] };

describe('DocumentBuilder.chunks', () => {
  it('equals canonicalJson for 2000 generated documents, built fresh and grown from built parts', () => {
    const builder = new DocumentBuilder();
    const gen = values(42);
    let doc: Doc = builder.build({ versions: [] });
    for (let i = 0; i < 2000; i++) {
      const value = { v: gen.next().value, nested: [gen.next().value] };
      assert.deepEqual(bytesOf(builder, builder.build(value)), expected(value));
      // A growing document reuses the bytes of its old versions.
      doc = builder.build({ ...doc, versions: [...doc.versions, value] });
      if (i % 97 === 0) assert.deepEqual(bytesOf(builder, doc), expected(doc));
    }
    assert.deepEqual(bytesOf(builder, doc), expected(doc));
  });

  it('a versions array grown one element per write is reused only when its old elements are the same', () => {
    const builder = new DocumentBuilder();
    const gen = values(7);
    let doc: Doc & { name?: string } = builder.build({ versions: [] });
    for (let i = 0; i < 300; i++) {
      const item = { version: i + 1, v: gen.next().value };
      let next: Doc & { name?: string } = { ...doc, versions: [...doc.versions, item] };
      // Now and then a write that is not an append: an old element replaced, or one dropped,
      // or another field of the document changed beside the append.
      if (i % 50 === 49) next = { versions: [...doc.versions.slice(0, -2), { replaced: i }, doc.versions.at(-1), item] };
      if (i % 50 === 25) next = { versions: [...doc.versions.slice(1), item] };
      if (i % 50 === 10) next = { ...next, name: `renamed ${i} é` };
      doc = builder.build(next);
      assert.deepEqual(bytesOf(builder, doc), expected(doc), `write ${i + 1}`);
    }
  });

  it('after a write that failed, the same document grown again and every earlier one keep their exact bytes', () => {
    const builder = new DocumentBuilder();
    let doc: Doc = builder.build({ versions: [{ version: 1 }] });
    for (let i = 2; i <= 40; i++) {
      const before = bytesOf(builder, doc);
      // The write of `failed` did not happen; the retry grows the same document again.
      const failed = builder.build({ versions: [...doc.versions, { version: i, attempt: 'first 🛰' }] });
      assert.deepEqual(bytesOf(builder, failed), expected(failed));
      const retried = builder.build({ versions: [...doc.versions, { version: i, attempt: 'second' }] });
      assert.deepEqual(bytesOf(builder, retried), expected(retried));
      assert.deepEqual(bytesOf(builder, failed), expected(failed));
      assert.deepEqual(bytesOf(builder, doc), before);
      doc = i % 3 === 0 ? failed : retried;
    }
  });

  it('chunks handed out are never changed by later writes', () => {
    const builder = new DocumentBuilder();
    let doc: Doc = builder.build({ versions: [{ version: 1 }] });
    const handed: Array<[Uint8Array[], Buffer]> = [];
    for (let i = 2; i <= 100; i++) {
      const chunks = builder.chunks(doc);
      handed.push([chunks, Buffer.concat(chunks)]);
      doc = builder.build({ versions: [...doc.versions, { version: i, note: 'é'.repeat(i) }] });
    }
    for (const [chunks, copy] of handed) assert.deepEqual(Buffer.concat(chunks), copy);
  });

  it('documents that are not objects, or hold arrays of other things', () => {
    const builder = new DocumentBuilder();
    const shared = builder.build({ s: 1 });
    for (const value of [[{ a: 1 }, shared], [{ b: 2 }, shared], [1, 'two', [3]], 'text', 12, null, {},
      { list: [1, 2, 3], empty: [], objects: [shared, shared] }, { only: [] }]) {
      assert.deepEqual(bytesOf(builder, builder.build(value)), expected(value), JSON.stringify(value));
    }
    // The same element object last in two different document arrays: each keeps its own bytes.
    const a = builder.build({ versions: [{ a: 1 }, shared] });
    const b = builder.build({ versions: [{ b: 2 }, shared] });
    assert.deepEqual(bytesOf(builder, a), expected(a));
    assert.deepEqual(bytesOf(builder, b), expected(b));
    const c = builder.build({ versions: [...a.versions, { c: 3 }] });
    assert.deepEqual(bytesOf(builder, c), expected(c));
  });

  it('the same built part serializes correctly at different depths', () => {
    const builder = new DocumentBuilder();
    const part = builder.build({ k: [1, { x: 'y' }] });
    const outer = builder.build({ a: part, b: [part, [part]], versions: [part, { part }] });
    assert.deepEqual(bytesOf(builder, part), expected(part));
    assert.deepEqual(bytesOf(builder, outer), expected(outer));
    assert.deepEqual(bytesOf(builder, part), expected(part));
  });
});
