// HTTP plumbing shared by the map, dataset and template routes: sending cached bodies
// with their ETag (304 on a matching If-None-Match, http/conditional.ts),
// lists with X-Total-Count, and the acting user's name for lastUpdatedBy.
import type { Context } from 'hono';
import { requestHeader } from '../auth/request-header.ts';
import type { AppEnv } from '../auth/types.ts';
import type { VersionedCollection } from '../resources/collection.ts';
import type { ListPage, Serialized } from '../resources/types.ts';
import { notModified } from './conditional.ts';
import { plainResponse } from './plain-response.ts';

const JSON_TYPE = 'application/json';

// The headers of a plain 200 and of a 304, made once per serialized version (versions never
// change): a GET answered from memory then makes no header object of its own. Frozen, and
// nothing needs to write into them: @hono/node-server copies a header object before adding to it, and CORS
// (http/cors.ts) adds to the Headers made from it.
const answerHeaders = new WeakMap<Serialized, { ok: Record<string, string>; notModified: Record<string, string> }>();

function headersOf(view: Serialized) {
  let made = answerHeaders.get(view);
  if (!made) {
    made = { ok: Object.freeze({ 'Content-Type': JSON_TYPE, ETag: view.etag }), notModified: Object.freeze({ ETag: view.etag }) };
    answerHeaders.set(view, made);
  }
  return made;
}

/** Sends one version's body with its ETag (304 when If-None-Match has it); at once when the body is ready. */
export function sendSerialized(c: Context, view: Serialized | Promise<Serialized>, status: 200 | 201 = 200, headers?: Record<string, string>): Response | Promise<Response> {
  if (view instanceof Promise) return view.then((ready) => sendSerialized(c, ready, status, headers));
  if (status === 200 && notModified(c, view.etag)) return plainResponse(null, 304, headersOf(view).notModified);
  if (!headers) return plainResponse(view.body, status, headersOf(view).ok);
  return plainResponse(view.body, status, { 'Content-Type': JSON_TYPE, ETag: view.etag, ...headers });
}

/**
 * Sends a version a write stored, with the write's `warnings` (keys kept as
 * sent that the service does not know) when there are any: they belong to
 * this answer, not to the stored version.
 */
export async function sendWritten(c: Context, view: Serialized | Promise<Serialized>, status: 200 | 201, warnings: string[], headers: Record<string, string> = {}) {
  const ready = await view;
  const body = warnings.length === 0 ? ready.body : `${ready.body.slice(0, -1)},"warnings":${JSON.stringify(warnings)}}`;
  return c.body(body, status, { 'Content-Type': JSON_TYPE, ETag: ready.etag, ...headers });
}

/** Sends the latest version (at once, from memory) or an older one (read first) of a resource. */
export function sendVersion(c: Context, col: VersionedCollection, id: string, which: 'latest' | number) {
  return which === 'latest' ? sendSerialized(c, col.serialized(col.get(id))) : col.at(id, which).then((v) => sendSerialized(c, col.serialized(v)));
}

const encoder = new TextEncoder();

/** Sends a list with its total in X-Total-Count: whole, or streamed piece by piece as it is read. */
/** The request's own path and query with `offset` moved on to the page after `paging`'s, when there is one. */
function nextPage(c: Context, total: number, paging?: { offset: number; limit?: number }): string | undefined {
  if (!paging || paging.limit === undefined || paging.offset + paging.limit >= total) return undefined;
  const url = new URL(c.req.url);
  url.searchParams.set('offset', String(paging.offset + paging.limit));
  url.searchParams.set('limit', String(paging.limit));
  return `<${url.pathname}${url.search}>; rel="next"`;
}

/** A list answer: its items, X-Total-Count, and with `paging` a Link to the next page when there is one. */
export async function sendList(c: Context, pending: ListPage | Promise<ListPage>, paging?: { offset: number; limit?: number }) {
  const page = await pending;
  const next = nextPage(c, page.total, paging);
  const headers: Record<string, string> = { 'Content-Type': JSON_TYPE, 'X-Total-Count': String(page.total), ...(next ? { Link: next } : {}) };
  if (page.body !== undefined || !page.stream) return c.body(page.body ?? '[]', 200, headers);
  const pieces = page.stream()[Symbol.asyncIterator]();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await pieces.next();
      if (done) controller.close();
      else controller.enqueue(encoder.encode(value));
    },
    async cancel() {
      await pieces.return?.();
    },
  });
  return c.body(body, 200, headers);
}

export const actingUser = (c: Context<AppEnv>) => c.get('principal').username;

export const ifMatch = (c: Context) => requestHeader(c, 'if-match');
