// docs/embedding.md's settings blocks, each started as written (the example
// address replaced by the test server's) and used as its client uses it: the
// bare picture, the map panel's public fetch from another origin, and
// Terranova's editor signing in with Basic credentials or through the
// built-in provider from a deep link, then calling the API from its origin.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import * as client from 'openid-client';
import { parse as parseYaml } from 'yaml';
import type { SettingsInput } from '../../config/settings.ts';
import { ADMIN_PASSWORD } from '../helpers/app.ts';
import { codeFlow, discover, startServer, type Running } from '../auth/oidc-helpers.ts';

const DOC = readFileSync(path.join(import.meta.dirname, '../../docs/embedding.md'), 'utf8');
const EXAMPLE = 'https://maps.example.net';
const EDITOR = 'https://editor.example.net';

/** The YAML block after `<!-- settings: name -->`. */
function block(name: string): string {
  const m = new RegExp(`<!-- settings: ${name} -->\\n\`\`\`yaml\\n([\\s\\S]*?)\`\`\``).exec(DOC);
  assert.ok(m, `docs/embedding.md has no settings block ${name}`);
  return m[1];
}

const running: Running[] = [];
after(() => Promise.all(running.map((s) => s.stop())));

/** The service started with a block (startServer sets server.baseUrl to its own address). */
async function startWith(name: string): Promise<Running> {
  const srv = await startServer(parseYaml(block(name)) as SettingsInput);
  running.push(srv);
  return srv;
}

const here = (srv: Running, text: string) => text.replaceAll(EXAMPLE, srv.baseUrl);

async function publishedMap(srv: Running, token: string): Promise<string> {
  const layer = { name: 'inline', mapjson: { name: 'x', nodes: [{ name: 'A', coordinate: [52, 13], meta: {} }, { name: 'B', coordinate: [48, 2], meta: {} }], edges: [] } };
  const res = await srv.request('/api/v1/map/', { method: 'POST', token, json: { name: 'Embedded', configuration: { layers: [layer] } } });
  const { mapId } = (await res.json()) as { mapId: string };
  assert.equal((await srv.request(`/api/v1/map/id/${mapId}/publish/`, { method: 'POST', token })).status, 200);
  return mapId;
}

describe('docs/embedding.md', () => {
  it('picture: the <img> example answers a picture with its natural size', async () => {
    const srv = await startWith('picture');
    const mapId = await publishedMap(srv, await srv.token());
    const src = /<img src="([^"]+)"/.exec(DOC)![1].replace('<mapId>', mapId);
    const res = await fetch(here(srv, src));
    assert.equal(res.status, 200);
    assert.match(await res.text(), /^<svg [^>]*width="\d+" height="\d+"[^>]*viewBox=|^<svg [^>]*viewBox="[^"]+"[^>]*width="\d+"/);
  });

  it('grafana: the public map URL answers the panel on another origin', async () => {
    const srv = await startWith('grafana');
    const mapId = await publishedMap(srv, await srv.token());
    const res = await fetch(`${srv.baseUrl}/api/v1/public/output/map/${mapId}/`, { headers: { origin: 'https://grafana.example.net' } });
    assert.equal(res.status, 200);
    assert.ok(res.headers.get('access-control-allow-origin'));
    assert.equal(((await res.json()) as { layers: unknown[] }).layers.length, 1);
  });

  it('terranova-basic: the editor\'s Basic credentials from its origin are served', async () => {
    const srv = await startWith('terranova-basic');
    const basic = `Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64')}`;
    const res = await fetch(`${srv.baseUrl}/api/v1/maps/`, { headers: { origin: EDITOR, authorization: basic } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('access-control-allow-origin'), EDITOR);
  });

  it('terranova-oidc: sign-in from a deep link of the editor, then the API from its origin', async () => {
    const srv = await startWith('terranova-oidc');
    const config = await discover(`${srv.baseUrl}/oidc`, 'terranova');
    config[client.customFetch] = (url, options) => fetch(url, { ...options, headers: { ...options.headers, origin: EDITOR } } as RequestInit);
    const { tokens } = await codeFlow({ config, redirectUri: `${EDITOR}/map/AbC1234`, scope: 'openid', username: 'admin', password: ADMIN_PASSWORD });
    assert.equal(tokens.scope, 'svc:maps:read svc:maps:write svc:maps:publish');
    const res = await fetch(`${srv.baseUrl}/api/v1/maps/`, { headers: { origin: EDITOR, authorization: `Bearer ${tokens.access_token}` } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('access-control-allow-origin'), EDITOR);
  });
});
