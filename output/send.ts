// Sending outputs through the output cache (output/cache.ts): topology
// and map JSON, SVG pictures, and PNG pictures, which are the same SVG
// rasterized (render/png.ts). A route hands over the key of its request and
// the render that makes the JSON or SVG; a PNG route hands over the SVG
// route's own key and render, so both answer the same picture for the same
// parameters, and a PNG costs no SVG render while that SVG is cached.
// Pictures and PNGs are drawn on the render pool (pool/pool.ts), for the
// caller who asked (a signed-in user, else the client address); a cached
// output is answered without it, at once. A caller the pool would refuse is
// refused before anything is read for its picture. Pictures stay bytes on
// this thread: the pool answers an SVG's UTF-8 bytes, and a PNG job takes
// the cached SVG's bytes and checks its size on the render thread.
import type { Context } from 'hono';
import type { AppEnv } from '../auth/types.ts';
import { clientAddress } from '../auth/client-address.ts';
import type { PictureJob } from '../pool/jobs.ts';
import type { Caller, RenderPool } from '../pool/pool.ts';
import type { Dependencies, Output, OutputCache } from './cache.ts';
import { PNG_RESPONSE_HEADERS, type PngLimits } from '../render/png.ts';
import { SVG_RESPONSE_HEADERS } from '../render/svg.ts';
import { sendRendered } from '../http/conditional.ts';

/** How a route makes its output: a JSON string (or a picture's bytes), recording what it read. */
type Render = (deps: Dependencies) => Promise<string | Uint8Array>;
/** How a route makes a picture: what the render pool is to draw, recording what it read. */
export type PictureRender = (deps: Dependencies) => Promise<PictureJob>;

export type PictureFormat = 'svg' | 'png';

// As c.json() would send it.
const JSON_HEADERS = { 'Content-Type': 'application/json' };

/** Sends an output at once when the cache has it at once (no promise: @hono/node-server's fast path), else once ready. */
function send(c: Context, out: Output | Promise<Output>, headers: Readonly<Record<string, string>>): Response | Promise<Response> {
  return out instanceof Promise ? out.then((ready) => sendRendered(c, ready, headers)) : sendRendered(c, out, headers);
}

/** Who a render is done for: the signed-in user, else the client address. */
export function callerOf(c: Context, trustProxy: boolean): Caller {
  const principal = (c as Context<AppEnv>).get('principal') as AppEnv['Variables']['principal'] | undefined;
  return principal ? { key: `user:${principal.username}`, signedIn: true } : { key: `address:${clientAddress(c, trustProxy)}`, signedIn: false };
}

export function outputSender(cache: OutputCache, png: PngLimits, pool: RenderPool, trustProxy: boolean) {
  return {
    /** JSON output under `key`. */
    json(c: Context, key: string, render: Render) {
      return send(c, cache.output(`json\n${key}`, render), JSON_HEADERS);
    },
    /** The picture under `key`, as SVG or as the PNG of that SVG. */
    picture(c: Context, format: PictureFormat, key: string, picture: PictureRender) {
      let caller: Caller | undefined;
      const who = () => (caller ??= callerOf(c, trustProxy));
      const renderSvg: Render = async (deps) => {
        pool.admit(who());
        return pool.run(await picture(deps), who());
      };
      if (format === 'svg') return send(c, cache.output(`svg\n${key}`, renderSvg), SVG_RESPONSE_HEADERS);
      const out = cache.output(`png\n${key}`, async (deps) => {
        pool.admit(who());
        const svg = (await cache.output(`svg\n${key}`, renderSvg, deps)).body;
        return pool.run({ kind: 'png', svg, limits: png }, who());
      });
      return send(c, out, PNG_RESPONSE_HEADERS);
    },
  };
}

export type OutputSender = ReturnType<typeof outputSender>;
