// @ts-check
// ELK's layered layout on a thread of its own. ELK runs synchronously (its
// bundled build dispatches in the calling thread), and a logical layout of a
// few hundred nodes takes a few hundred milliseconds, the first one in a
// process about a second: on the service's own thread that would stall every
// other request, health checks included, for as long. The service's side
// (layout-client.ts) sends an ELK graph and gets back only the numbers the
// picture needs. Plain JavaScript checked by tsc through JSDoc: a worker does
// not inherit the TypeScript loader on Node 20.
import ElkModule from 'elkjs/lib/elk.bundled.js';
import { parentPort, workerData } from 'node:worker_threads';

/** @typedef {import('elkjs/lib/elk-api.js').ElkNode} ElkNode */
/** @typedef {import('elkjs/lib/elk-api.js').ElkExtendedEdge} ElkExtendedEdge */

/**
 * What a layout answers, in ELK's pixel space (the graph is laid out with
 * `elk.json.shapeCoords` and `edgeCoords` ROOT, so every figure is relative
 * to the drawing's top-left corner): the drawing's size, every node's box by
 * id (compound nodes included) and every edge's route by id, from ELK's
 * source to its target: start point, bend points, end point.
 * @typedef {{
 *   width: number,
 *   height: number,
 *   nodes: Record<string, [x: number, y: number, width: number, height: number]>,
 *   routes: Record<string, Array<[x: number, y: number]>>,
 * }} LayoutResult
 */

/** @typedef {{ id: number, request: ElkNode }} LayoutRequest */
/** @typedef {{ id: number, result: unknown } | { id: number, error: string }} LayoutReply */

/**
 * The numbers of a laid-out graph that the picture uses.
 * @param {ElkNode} out
 * @returns {LayoutResult}
 */
export function layoutResult(out) {
  /** @type {LayoutResult} */
  const result = { width: out.width ?? 0, height: out.height ?? 0, nodes: {}, routes: {} };
  /** @param {ElkNode} n */
  const walk = (n) => {
    for (const e of /** @type {ElkExtendedEdge[]} */ (n.edges ?? [])) {
      result.routes[e.id] = (e.sections ?? []).flatMap((s) => [s.startPoint, ...(s.bendPoints ?? []), s.endPoint])
        .map((p) => /** @type {[number, number]} */ ([p.x, p.y]));
    }
    for (const c of n.children ?? []) {
      result.nodes[c.id] = [c.x ?? 0, c.y ?? 0, c.width ?? 0, c.height ?? 0];
      walk(c);
    }
  };
  walk(out);
  return result;
}

/**
 * An ELK engine of the bundled build, which computes in the calling thread.
 * @returns {{ layout(graph: ElkNode): Promise<ElkNode> }}
 */
export function createElk() {
  // elkjs is CommonJS: its constructor arrives as the default export or wrapped in one.
  const Elk = /** @type {any} */ (ElkModule).default ?? ElkModule;
  return new Elk();
}

if (parentPort && workerData === 'mts-layout') {
  const port = parentPort;
  const elk = createElk();
  port.on('message', (/** @type {LayoutRequest} */ { id, request }) => {
    elk.layout(request).then(
      (/** @type {ElkNode} */ out) => port.postMessage(/** @type {LayoutReply} */ ({ id, result: layoutResult(out) })),
      (/** @type {unknown} */ error) => port.postMessage(/** @type {LayoutReply} */ ({ id, error: error instanceof Error ? error.message : String(error) })),
    );
  });
}
