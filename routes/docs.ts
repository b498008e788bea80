// GET /docs: interactive API documentation (Swagger UI) that works offline.
// Every asset comes from the swagger-ui-dist package in node_modules and is
// served by the service itself; a strict Content-Security-Policy keeps the
// page from loading or sending anything anywhere else. Asset names are a
// fixed list, so no request path ever reaches the file system.
import type { Context } from 'hono';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Settings } from '../config/settings.ts';
import { declarer, type Operation } from '../http/operation.ts';

type Deps = { settings: Settings };
const route = declarer<Deps>();

const DOCS_CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data:",
  "font-src 'self' data:", "connect-src 'self'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
].join('; ');

const DIST = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const FROM_DIST: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

// Our start-up script is a file of its own (script-src 'self' forbids inline scripts).
const INIT_JS = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: document.body.getAttribute('data-spec'),
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout'
  });
});
`;

const page = (base: string) => `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Map Topology Service API</title>
<link rel="stylesheet" href="${base}/docs/assets/swagger-ui.css">
<link rel="icon" type="image/png" href="${base}/docs/assets/favicon-32x32.png" sizes="32x32">
<link rel="icon" type="image/png" href="${base}/docs/assets/favicon-16x16.png" sizes="16x16">
</head>
<body data-spec="${base}/openapi.json" style="margin:0;background:#fafafa">
<div id="swagger-ui"></div>
<script src="${base}/docs/assets/swagger-ui-bundle.js"></script>
<script src="${base}/docs/assets/init.js"></script>
</body>
</html>
`;

const headers = (type: string) => ({
  'Content-Type': type,
  'Content-Security-Policy': DOCS_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
});

/** The page, with its assets' paths under the base path of server.baseUrl. */
const docsPage = ({ settings }: Deps) => {
  const html = page(new URL(settings.server.baseUrl).pathname.replace(/\/+$/, ''));
  return (c: Context) => c.body(html, 200, headers('text/html; charset=utf-8'));
};

// One static route per asset: a `:file` parameter beside the static init.js
// would push Hono off its RegExpRouter onto the slower TrieRouter for every route.
const asset = (file: string, type: string): Operation<Deps> => route({
  method: 'get', path: `/docs/assets/${file}`, tag: 'service', summary: `The API documentation page's ${file}`, scope: null, unlisted: true, answers: { 200: { description: file, mediaType: type } },
  handle: () => {
    let bytes: Buffer | undefined;
    return async (c) => {
      bytes ??= await readFile(path.join(DIST, file));
      return c.body(new Uint8Array(bytes), 200, { ...headers(type), 'Cache-Control': 'public, max-age=86400' });
    };
  },
});

export const DOCS_OPERATIONS: Operation<Deps>[] = [
  route({ method: 'get', path: '/api/v1/docs', tag: 'service', summary: 'Interactive API documentation, beside the API', scope: null, answers: { 200: { description: 'HTML page', mediaType: 'text/html' } }, handle: docsPage }),
  route({ method: 'get', path: '/docs', tag: 'service', summary: 'Interactive API documentation (served offline)', scope: null, answers: { 200: { description: 'HTML page', mediaType: 'text/html' } }, handle: docsPage }),
  route({
    method: 'get', path: '/docs/assets/init.js', tag: 'service', summary: 'The API documentation page\'s start-up script', scope: null, unlisted: true, answers: { 200: { description: 'init.js', mediaType: 'text/javascript' } },
    handle: () => (c) => c.body(INIT_JS, 200, headers('text/javascript; charset=utf-8')),
  }),
  ...Object.entries(FROM_DIST).map(([file, type]) => asset(file, type)),
];
