import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ElkNode } from 'elkjs/lib/elk-api.js';
import { drawStraight, layOut, layoutThread } from '../../render/layout-client.ts';
import { ELK_OPTIONS } from '../../render/logical-layout.ts';
import { createElk, layoutResult } from '../../render/layout-thread.mjs';

/** A ladder of `rungs` rungs with a diagonal in every square: 2*rungs nodes, about 4*rungs edges. */
function ladder(rungs: number): ElkNode {
  const children = Array.from({ length: rungs * 2 }, (_, i) => ({ id: `n${i}`, width: 30, height: 15 }));
  const edges: ElkNode['edges'] = [];
  const edge = (a: number, b: number) => edges!.push({ id: `e${edges!.length}`, sources: [`n${a}`], targets: [`n${b}`] });
  for (let i = 0; i < rungs; i++) {
    edge(2 * i, 2 * i + 1);
    if (i + 1 < rungs) {
      edge(2 * i, 2 * i + 2);
      edge(2 * i + 1, 2 * i + 3);
      edge(2 * i, 2 * i + 3);
    }
  }
  return { id: 'root', layoutOptions: ELK_OPTIONS, children, edges };
}

/** `work`'s value, and how many times the event loop turned while it was awaited. */
async function turning<T>(work: Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let running = true;
  const spin = () => {
    turns++;
    if (running) setImmediate(spin);
  };
  setImmediate(spin);
  try {
    return { value: await work, turns };
  } finally {
    running = false;
  }
}

describe('the layout thread', () => {
  it('answers what ELK computes for the same graph on this thread', async () => {
    const graph = ladder(12);
    const here = layoutResult(await createElk().layout(structuredClone(graph)));
    const there = await layOut(graph);
    assert.deepEqual(there, here);
    assert.equal(Object.keys(there.nodes).length, 24);
    assert.equal(Object.keys(there.routes).length, graph.edges!.length);
  });

  it('keeps the event loop turning while a large layout runs', async () => {
    // Hundreds of milliseconds of ELK: on this thread, the loop would not turn until it ended.
    const { value: result, turns } = await turning(layOut(ladder(250)));
    assert.equal(Object.keys(result.nodes).length, 500);
    assert.ok(turns >= 1000, `the event loop turned ${turns} times during the layout`);
  });

  it('fails a layout ELK refuses, and the next layout still works', async () => {
    const bad: ElkNode = { id: 'root', children: [{ id: 'a', width: 1, height: 1 }], edges: [{ id: 'e', sources: ['a'], targets: ['missing'] }] };
    await assert.rejects(layOut(bad), /^Error: logical layout failed: .+/);
    const ok = await layOut(ladder(3));
    assert.equal(Object.keys(ok.nodes).length, 6);
  });

  it('a layout that outgrows the thread\'s heap fails with 422, the service goes on, and the next layout gets a new thread', async () => {
    const thread = layoutThread({ heapMb: 32 });
    try {
      // 2,000 nodes and 4,000 random edges with no layering hints: far more than 32 MB of ELK's working memory (the
      // heap is the test's: a smaller one is outgrown by a smaller graph, sooner).
      let seed = 7;
      const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) % 2000;
      const big: ElkNode = {
        id: 'root', layoutOptions: ELK_OPTIONS,
        children: Array.from({ length: 2000 }, (_, i) => ({ id: `n${i}`, width: 30, height: 15 })),
        edges: Array.from({ length: 4000 }, (_, i) => ({ id: `e${i}`, sources: [`n${next()}`], targets: [`n${next()}`] })),
      };
      assert.equal(Object.keys((await thread.layOut(ladder(2))).nodes).length, 4);
      const error = await thread.layOut(big).catch((e) => e);
      assert.equal(error.code, 'validation_failed');
      assert.match(error.message, /needs more than the 32 MB of memory it may use; filter the dataset/);
      assert.equal(Object.keys((await thread.layOut(ladder(3))).nodes).length, 6);
    } finally {
      await thread.close();
    }
  });
});

describe('the drawing thread', () => {
  // A 6 x 6 grid of routers, stretched out of shape: annealing it takes hundreds of milliseconds.
  const grid = () => {
    const ends: [number, number][] = [];
    for (let r = 0; r < 6; r++) for (let c = 0; c < 6; c++) {
      if (c < 5) ends.push([6 * r + c, 6 * r + c + 1]);
      if (r < 5) ends.push([6 * r + c, 6 * r + c + 6]);
    }
    const boxes = Array.from({ length: 36 }, () => ({ w: 40, h: 15 }));
    const nodes = Object.fromEntries(boxes.map((b, i) => [`n${i}`, [(i % 6) * 90 + ((i * 37) % 11) * 9, Math.floor(i / 6) * 50, b.w, b.h] as [number, number, number, number]]));
    return { input: { boxes, ends }, out: { width: 560, height: 300, nodes, routes: {} } };
  };

  it('keeps the event loop turning while a drawing is annealed, and answers it', async () => {
    const started = performance.now();
    const { value: drawn, turns } = await turning(drawStraight({ kind: 'annealed', ...grid() }));
    const ms = performance.now() - started;
    assert.equal(Object.keys(drawn!.nodes).filter((k) => k.startsWith('n')).length, 36);
    // At least one turn a millisecond: a drawing annealed on this thread allows none until it ends.
    assert.ok(turns >= ms / 2, `the event loop turned ${turns} times in ${ms.toFixed(0)} ms`);
  });

  it('answers the stress drawing of a ring; a job it cannot do fails alone, and the next still works', async () => {
    const ends = Array.from({ length: 8 }, (_, i) => [i, (i + 1) % 8] as [number, number]);
    const ring = await drawStraight({ kind: 'straight', input: { boxes: ends.map(() => ({ w: 30, h: 15 })), ends } });
    assert.equal(Object.keys(ring!.nodes).length, 8);
    await assert.rejects(drawStraight({ kind: 'sideways' } as never), /^Error: logical layout failed: no such drawing: sideways/);
    assert.deepEqual(await drawStraight({ kind: 'straight', input: { boxes: ends.map(() => ({ w: 30, h: 15 })), ends } }), ring);
  });
});
