// output/cache.ts on its own: bounded by bytes with the least recently
// used output dropped first, dependencies probed on every hit (those with a
// most age at most that often, one answer shared by every output), identical
// requests during one render sharing it, failed renders not kept, an output
// nobody asked for in OUTPUT_IDLE_MS dropped.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createOutputCache, etagOf, OUTPUT_IDLE_MS, type Dependencies, type Output } from '../../output/cache.ts';

const text = (o: Output) => new TextDecoder().decode(o.body);

function counting(maxBytes: number) {
  const rendered: string[] = [];
  const cache = createOutputCache({ maxBytes, onRender: (key) => rendered.push(key) });
  const get = (key: string, size = 800) => cache.output(key, async () => key.repeat(size / key.length));
  return { cache, rendered, get };
}

describe('createOutputCache', () => {
  it('keeps outputs up to maxBytes, dropping the least recently used first', async () => {
    const { rendered, get } = counting(4000); // room for four outputs of 800 bytes and their keys
    for (const key of ['a', 'b', 'c', 'd']) await get(key);
    await get('a'); // a is now the most recent; b the least
    await get('e');
    assert.deepEqual(rendered, ['a', 'b', 'c', 'd', 'e']);
    await get('a');
    await get('c');
    assert.equal(rendered.length, 5, 'a and c were kept');
    await get('b');
    assert.deepEqual(rendered.slice(5), ['b'], 'b was dropped');
  });

  it('the ETag is the hash of the bytes, for strings and binary alike', async () => {
    const { cache } = counting(10_000);
    const fromText = await cache.output('t', async () => 'hello');
    const bytes = await cache.output('b', async () => new TextEncoder().encode('hello'));
    assert.equal(fromText.etag, etagOf('hello'));
    assert.equal(bytes.etag, fromText.etag);
    assert.equal(text(fromText), 'hello');
  });

  it('serves an output only while every dependency answers what it answered when rendered', async () => {
    const { cache, rendered } = counting(10_000);
    let version = 1;
    let gone = false;
    const render = async (deps: import('../../output/cache.ts').Dependencies) => {
      deps.add('version', String(version), () => { if (gone) throw new Error('deleted'); return String(version); });
      return `v${version}`;
    };
    assert.equal(text(await cache.output('k', render)), 'v1');
    assert.equal(text(await cache.output('k', render)), 'v1');
    version = 2;
    assert.equal(text(await cache.output('k', render)), 'v2');
    gone = true;
    await cache.output('k', render);
    assert.equal(rendered.length, 3, 'rendered anew when a probe fails');
  });

  describe('a dependency with a most age (a live sheet\'s identity)', () => {
    /** A cache on a pinned clock; outputs `a` and `b` both drawn from one sheet whose probe is counted. */
    function sheetCache() {
      let ms = 1_000_000;
      let sheet = 'rows v1';
      let probes = 0;
      const cache = createOutputCache({ maxBytes: 10_000, now: () => ms });
      const render = (name: string) => async (deps: Dependencies) => {
        deps.add('sheet circuits', sheet, () => { probes++; return sheet; }, 1000);
        return `${name} of ${sheet}`;
      };
      const get = async (name: string) => text(await cache.output(name, render(name)));
      return { get, advance: (by: number) => { ms += by; }, change: (to: string) => { sheet = to; }, probes: () => probes };
    }

    it('is asked again only once its answer is that old, one answer for every output drawn from it', async () => {
      const s = sheetCache();
      assert.equal(await s.get('a'), 'a of rows v1');
      assert.equal(await s.get('b'), 'b of rows v1');
      for (let i = 0; i < 5; i++) {
        await s.get('a');
        await s.get('b');
      }
      assert.equal(s.probes(), 0, 'the renders\' own readings answer for a second');
      s.advance(1000);
      await s.get('a');
      await s.get('b');
      assert.equal(s.probes(), 1, 'asked once for both outputs');
    });

    it('a change shows once the answer is that old, in every output drawn from it', async () => {
      const s = sheetCache();
      await s.get('a');
      await s.get('b');
      s.change('rows v2');
      s.advance(999);
      assert.equal(await s.get('a'), 'a of rows v1', 'within the most age: the kept output');
      s.advance(1);
      assert.equal(await s.get('a'), 'a of rows v2');
      assert.equal(await s.get('b'), 'b of rows v2', 'the answer a\'s probe got serves b too');
    });

    it('a render\'s newer reading makes outputs drawn before it stale at once', async () => {
      const s = sheetCache();
      await s.get('a');
      s.change('rows v2');
      s.advance(2000);
      assert.equal(await s.get('c'), 'c of rows v2'); // a new output reads the sheet as it is now
      assert.equal(await s.get('a'), 'a of rows v2', 'a compares with the newest reading, not its own old one');
    });
  });

  it('identical requests during a render share it; a failed render is not kept', async () => {
    const { cache, rendered } = counting(10_000);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    const slow = async () => { await gate; return 'done'; };
    const both = Promise.all([cache.output('k', slow), cache.output('k', slow)]);
    release();
    assert.deepEqual((await both).map(text), ['done', 'done']);
    assert.equal(rendered.length, 1);
    await assert.rejects(async () => cache.output('f', async () => { throw new Error('no sheet'); }), /no sheet/);
    assert.equal(text(await cache.output('f', async () => 'back')), 'back');
  });

  it('maxBytes 0 keeps nothing', async () => {
    const { rendered, get } = counting(0);
    await get('a');
    await get('a');
    assert.equal(rendered.length, 2);
  });
});

describe('createOutputCache: idle outputs', () => {
  it('drops an output nobody asked for in OUTPUT_IDLE_MS, and keeps one asked for meanwhile', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 }); // lru-cache reads a time of 0 as no time at all
    const rendered: string[] = [];
    const cache = createOutputCache({ maxBytes: 1_000_000, onRender: (key) => rendered.push(key), idleClock: { now: () => Date.now() } });
    const get = (key: string) => cache.output(key, async () => `<svg>${key}</svg>`);
    await get('asked');
    await get('left');
    for (let i = 0; i < 3; i++) {
      t.mock.timers.tick(OUTPUT_IDLE_MS / 2);
      await get('asked'); // every half of the idle time: never idle that long
    }
    assert.deepEqual(rendered, ['asked', 'left'], 'both kept until left was idle');
    await get('left');
    assert.deepEqual(rendered, ['asked', 'left', 'left'], 'left was dropped after OUTPUT_IDLE_MS unasked');
    t.mock.timers.tick(OUTPUT_IDLE_MS + 1);
    await get('asked');
    assert.equal(rendered.at(-1), 'asked', 'asked was dropped once nobody asked for it');
  });

  it('tells onIdleDrop of each output dropped idle (server.ts then asks for a collection)', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
    let drops = 0;
    const cache = createOutputCache({ maxBytes: 1_000_000, idleClock: { now: () => Date.now() }, onIdleDrop: () => drops++ });
    await cache.output('a', async () => '<svg>a</svg>');
    await cache.output('b', async () => '<svg>b</svg>');
    t.mock.timers.tick(OUTPUT_IDLE_MS / 2);
    assert.equal(drops, 0);
    t.mock.timers.tick(OUTPUT_IDLE_MS / 2 + 1);
    assert.equal(drops, 2);
  });
});

