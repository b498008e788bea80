// Sending outputs through the output cache (output/cache.ts): topology
// and map JSON, SVG pictures, and PNG pictures, which are the same SVG
// rasterized (render/png.ts). A route hands over the key of its request and
// the render that makes the JSON or SVG; a PNG route hands over the SVG
// route's own key and render, so both answer the same picture for the same
// parameters, and a PNG costs no SVG render while that SVG is cached.
import type { Context } from 'hono';
import type { Dependencies, Output, OutputCache } from './cache.ts';
import { PNG_RESPONSE_HEADERS, renderPng, type PngLimits } from '../render/png.ts';
import { SVG_RESPONSE_HEADERS } from '../render/svg.ts';
import { sendRendered } from '../http/conditional.ts';

/** How a route makes its output: a JSON or SVG string, recording what it read. */
export type Render = (deps: Dependencies) => Promise<string>;

export type PictureFormat = 'svg' | 'png';

// As c.json() would send it.
const JSON_HEADERS = { 'Content-Type': 'application/json' };

/** Sends an output at once when the cache has it at once (no promise: @hono/node-server's fast path), else once ready. */
function send(c: Context, out: Output | Promise<Output>, headers: Readonly<Record<string, string>>): Response | Promise<Response> {
  return out instanceof Promise ? out.then((ready) => sendRendered(c, ready, headers)) : sendRendered(c, out, headers);
}

export function outputSender(cache: OutputCache, png: PngLimits) {
  return {
    /** JSON output under `key`. */
    json(c: Context, key: string, render: Render) {
      return send(c, cache.output(`json\n${key}`, render), JSON_HEADERS);
    },
    /** The picture under `key`, as SVG or as the PNG of that SVG. */
    picture(c: Context, format: PictureFormat, key: string, renderSvg: Render) {
      if (format === 'svg') return send(c, cache.output(`svg\n${key}`, renderSvg), SVG_RESPONSE_HEADERS);
      const out = cache.output(`png\n${key}`, async (deps) =>
        renderPng(new TextDecoder().decode((await cache.output(`svg\n${key}`, renderSvg, deps)).body), png));
      return send(c, out, PNG_RESPONSE_HEADERS);
    },
  };
}

export type OutputSender = ReturnType<typeof outputSender>;
