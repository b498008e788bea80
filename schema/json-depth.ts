// How deep JSON from clients may nest. The store and the renderer walk
// documents recursively, and a body a few KB long can nest thousands deep;
// no map, dataset, template, topology or login needs more than a handful of
// levels. Request bodies are checked at the edge (routes/body.ts), JSON held
// in a string (a layer's inline mapjson) where it is parsed.

/** Levels of arrays and objects JSON may nest, the outermost being the first. */
export const MAX_JSON_DEPTH = 64;

/**
 * Where `value` nests deeper than MAX_JSON_DEPTH: the top-level key it is
 * under ('' for the items of a top-level array), or undefined when it does
 * not. Iterative, so a hostile depth cannot exhaust the stack here either.
 */
export function tooDeepUnder(value: unknown): string | undefined {
  const pending: Array<[object, number, string]> = typeof value === 'object' && value !== null ? [[value, 1, '']] : [];
  for (let item = pending.pop(); item; item = pending.pop()) {
    const [node, depth, top] = item;
    // An array's items by index: Object.entries made a [key, value] pair and a key string per item, which for
    // a 1 MiB body of numbers was most of a PUT's CPU and its garbage.
    if (Array.isArray(node)) {
      for (const child of node as unknown[]) {
        if (typeof child !== 'object' || child === null) continue;
        if (depth === MAX_JSON_DEPTH) return top;
        pending.push([child, depth + 1, top]);
      }
      continue;
    }
    for (const key of Object.keys(node)) {
      const child = (node as Record<string, unknown>)[key];
      if (typeof child !== 'object' || child === null) continue;
      const under = depth === 1 ? key : top;
      if (depth === MAX_JSON_DEPTH) return under;
      pending.push([child, depth + 1, under]);
    }
  }
  return undefined;
}
