// The home page at `/` and its files under `/web/`: the static HTML, CSS and
// ES modules of web/, read once at start and served from memory (so no path
// from a request ever reaches the file system), each with a strong ETag.
// The page talks to the public API only; its Content-Security-Policy lets it
// load and call nothing but this origin.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Hono } from 'hono';

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

interface WebFile {
  body: Uint8Array<ArrayBuffer>;
  headers: Record<string, string>;
}

async function readWebFiles(): Promise<Map<string, WebFile>> {
  const files = new Map<string, WebFile>();
  for (const entry of await readdir(WEB_DIR, { withFileTypes: true, recursive: true })) {
    const type = TYPES[path.extname(entry.name)];
    if (!entry.isFile() || !type) continue;
    const full = path.join(entry.parentPath, entry.name);
    const body = new Uint8Array(await readFile(full)) as Uint8Array<ArrayBuffer>;
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    files.set(path.relative(WEB_DIR, full).split(path.sep).join('/'), {
      body,
      headers: { 'Content-Type': type, ETag: etag, 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': CSP },
    });
  }
  return files;
}

export async function homeRoutes() {
  const files = await readWebFiles();
  const app = new Hono({ strict: false });
  const send = (name: string, ifNoneMatch: string | undefined) => {
    const file = files.get(name);
    if (!file) return undefined;
    if (ifNoneMatch === file.headers.ETag) return new Response(null, { status: 304, headers: file.headers });
    return new Response(file.body, { headers: file.headers });
  };
  app.get('/', (c) => send('index.html', c.req.header('if-none-match')) ?? c.notFound());
  app.get('/web/*', (c) => send(c.req.path.slice('/web/'.length), c.req.header('if-none-match')) ?? c.notFound());
  return app;
}
