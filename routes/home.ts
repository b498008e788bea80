// The home page at `/` and its files under `/web/`: the static HTML, CSS and
// ES modules of web/, each file its own unlisted route (a `/web/*` wildcard
// would let a request path choose what is read; here no path reaches the file
// system), read once and kept in memory with a strong ETag. The page talks to
// the public API only; its Content-Security-Policy lets it load and call
// nothing but this origin.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Context } from 'hono';
import { declarer, type Operation, rendered } from '../http/operation.ts';

const route = declarer<unknown>();
const WEB_DIR = path.resolve(import.meta.dirname, '..', 'web');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** Pictures come from this origin (and blob: URLs the page makes of answers it fetched with a token). */
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** web/'s files by their path below it, found once when the service starts. */
const FILES = readdirSync(WEB_DIR, { withFileTypes: true, recursive: true })
  .filter((e) => e.isFile() && TYPES[path.extname(e.name)])
  .map((e) => path.relative(WEB_DIR, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
  .sort();

/** A file's handler: its bytes and headers read on first use, then a 304 for its ETag or the bytes. */
function fileHandler(name: string) {
  let file: { body: Uint8Array<ArrayBuffer>; headers: Record<string, string> } | undefined;
  return (c: Context) => {
    if (!file) {
      const body = new Uint8Array(readFileSync(path.join(WEB_DIR, name))) as Uint8Array<ArrayBuffer>;
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
      file = { body, headers: { 'Content-Type': TYPES[path.extname(name)], ETag: etag, 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': CSP } };
    }
    if (c.req.header('if-none-match') === file.headers.ETag) return new Response(null, { status: 304, headers: file.headers });
    return new Response(file.body, { headers: file.headers });
  };
}

export const HOME_OPERATIONS: Operation<unknown>[] = [
  route({
    method: 'get', path: '/', tag: 'service', summary: 'The home page: public maps, and after signing in maps, datasets, templates and the composer (its files under /web/)', scope: null,
    answers: { 200: rendered({ description: 'HTML page', mediaType: 'text/html' }) },
    handle: () => fileHandler('index.html'),
  }),
  ...FILES.map((name) => route({
    method: 'get', path: `/web/${name}`, tag: 'service', summary: `The home page's ${name}`, scope: null, unlisted: true,
    answers: { 200: rendered({ description: name, mediaType: TYPES[path.extname(name)].split(';')[0] }) },
    handle: () => fileHandler(name),
  })),
];
