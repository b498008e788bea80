// The stored text of a document is exactly JSON.stringify(doc, null, 2) of its
// canonical form, also when parts of it come from the builder's text memo.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalJson, DocumentBuilder } from '../../store/canonical-json.ts';

// A deterministic generator of awkward JSON values.
function* values(seed: number): Generator<unknown> {
  let x = seed;
  const rnd = () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const make = (depth: number): unknown => {
    const r = rnd();
    if (depth > 3 || r < 0.3) {
      return [null, true, false, 0, -0, 1.5e300, -7, 'text', '', 'quote " and \\ and \n', '\u2028', '__proto__', NaN, undefined][Math.floor(rnd() * 14)];
    }
    if (r < 0.6) return Array.from({ length: Math.floor(rnd() * 4) }, () => make(depth + 1));
    const obj: Record<string, unknown> = {};
    for (const key of ['b', 'a', '10', '2', 'z z', 'constructor'].slice(0, Math.floor(rnd() * 6))) obj[key] = make(depth + 1);
    return obj;
  };
  for (;;) yield make(0);
}

describe('DocumentBuilder.text', () => {
  it('equals canonicalJson for 2000 generated documents, built fresh and grown from built parts', () => {
    const builder = new DocumentBuilder();
    const gen = values(42);
    let doc = builder.build({ versions: [] as unknown[] });
    for (let i = 0; i < 2000; i++) {
      const value = { v: gen.next().value, nested: [gen.next().value] };
      assert.equal(builder.text(builder.build(value)) + '\n', canonicalJson(value));
      // A growing document reuses the text of its old versions at their depth.
      doc = builder.build({ versions: [...doc.versions, value] });
      if (i % 97 === 0) assert.equal(builder.text(doc) + '\n', canonicalJson(doc));
    }
    assert.equal(builder.text(doc) + '\n', canonicalJson(doc));
  });

  it('a versions array grown one element per write is reused only when its old elements are the same', () => {
    const builder = new DocumentBuilder();
    const gen = values(7);
    let doc = builder.build({ versions: [] as unknown[] });
    for (let i = 0; i < 300; i++) {
      const item = { version: i + 1, v: gen.next().value };
      let next: { versions: unknown[] } = { versions: [...doc.versions, item] };
      // Now and then a write that is not an append: an old element replaced, or one dropped.
      if (i % 50 === 49) next = { versions: [...doc.versions.slice(0, -2), { replaced: i }, doc.versions.at(-1), item] };
      if (i % 50 === 25) next = { versions: [...doc.versions.slice(1), item] };
      doc = builder.build(next);
      assert.equal(builder.text(doc) + '\n', canonicalJson(doc), `write ${i + 1}`);
    }
    // The same element object last in two different arrays: each keeps its own text.
    const shared = builder.build({ s: 1 });
    const a = builder.build([{ a: 1 }, shared]);
    const b = builder.build([{ b: 2 }, shared]);
    assert.equal(builder.text(a), JSON.stringify(a, null, 2));
    assert.equal(builder.text(b), JSON.stringify(b, null, 2));
    assert.equal(builder.text(builder.build([{ a: 1 }, shared, { c: 3 }])), JSON.stringify([{ a: 1 }, shared, { c: 3 }], null, 2));
  });

  it('the same built part serializes correctly at different depths', () => {
    const builder = new DocumentBuilder();
    const part = builder.build({ k: [1, { x: 'y' }] });
    const outer = builder.build({ a: part, b: [part, [part]] });
    assert.equal(builder.text(part), JSON.stringify(part, null, 2));
    assert.equal(builder.text(outer), JSON.stringify(outer, null, 2));
    assert.equal(builder.text(part), JSON.stringify(part, null, 2));
  });
});
