// The built-in provider's sign-ins in progress under a flood of anonymous
// starts with store.backend: postgres, where they are rows every replica
// shares (store/postgres/shared-entries.ts): the rows stay within
// auth.oidc.maxInteractions of each kind, one address within its share; an
// interaction whose login form was shown survives floods from one address and
// from many, and its sign-in completes; expired rows go as new ones are
// written. The client address comes from X-Forwarded-For (server.trustProxy),
// so one test process can stand for many clients.
import assert from 'node:assert/strict';
import { getRequestListener } from '@hono/node-server';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import * as client from 'openid-client';
import pg from 'pg';
import { ADMIN_PASSWORD } from '../helpers/app.ts';
import { noPostgres, startCluster, type Cluster } from '../helpers/postgres.ts';
import { startReplica, type Replica } from '../helpers/replica.ts';
import { Browser, CB, discover, oidcSettings } from './oidc-helpers.ts';

type Served = { replica: Replica; server: Server; origin: string; db: pg.Client };

async function serveReplica(cluster: Cluster, oidc: Parameters<typeof oidcSettings>[0]): Promise<Served> {
  const url = await cluster.createDatabase();
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const replica = await startReplica(url, { ...oidcSettings(oidc), server: { baseUrl: origin, trustProxy: true } });
  server.on('request', getRequestListener(replica.app.fetch));
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  return { replica, server, origin, db };
}

async function stop(s: Served | undefined) {
  if (!s) return;
  await s.db.end();
  s.server.closeAllConnections();
  await new Promise<void>((resolve) => s.server.close(() => resolve()));
  await s.replica.close();
}

/** An anonymous start of a sign-in from `address`: a new interaction, no cookie kept. */
async function anonymousStart(authUrl: URL, address: string) {
  const res = await fetch(authUrl, { redirect: 'manual', headers: { 'x-forwarded-for': address } });
  await res.arrayBuffer();
  assert.equal(res.status, 303);
}

const counts = async (db: pg.Client, where = 'true', params: unknown[] = []) => Object.fromEntries((await db.query<{ kind: string; n: number }>(
  `SELECT kind, count(*)::int AS n FROM shared_entries WHERE ${where} GROUP BY kind`, params)).rows.map((r) => [r.kind, r.n]));

describe('GET /oidc/auth flood with PostgreSQL', { skip: noPostgres }, () => {
  let cluster: Cluster;
  before(async () => {
    cluster = await startCluster();
  });
  after(async () => {
    await cluster?.stop();
  });

  it('keeps the rows within the bounds, and the sign-in whose form is open completes', async () => {
    const s = await serveReplica(cluster, { maxInteractions: 50 }); // a share of 10 an address
    try {
      const config = await discover(`${s.origin}/oidc`, 'editor');
      const browser = new Browser();
      const verifier = client.randomPKCECodeVerifier();
      const state = client.randomState();
      const authUrl = client.buildAuthorizationUrl(config, { redirect_uri: CB, scope: 'openid svc:maps:read', state,
        code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
      const page = await browser.follow(authUrl, CB);
      const html = await page.res.text();
      assert.match(html, /Password/);

      for (let i = 0; i < 300; i++) await anonymousStart(authUrl, '198.51.100.1');
      const flooder = await counts(s.db, 'owner = $1', ['198.51.100.1']);
      assert.ok(flooder.Interaction > 0 && flooder.Interaction <= 10, `one address keeps its share: ${JSON.stringify(flooder)}`);
      for (let i = 0; i < 300; i++) await anonymousStart(authUrl, `10.0.${i >> 8}.${i & 255}`);
      const all = await counts(s.db);
      for (const [kind, n] of Object.entries(all)) assert.ok(n <= 50, `${kind}: ${n} rows, bound 50`);
      assert.equal(all.Interaction, 50, 'the bound is full, not emptied');

      const posted = await browser.submit(page.url, html, '/login', { username: 'admin', password: ADMIN_PASSWORD });
      assert.equal(posted.status, 303, 'the login form is still answered');
      let step = await browser.follow(new URL(posted.headers.get('location') ?? '', page.url), CB);
      if (!step.url.href.startsWith(CB)) {
        const confirmed = await browser.submit(step.url, await step.res.text(), '/confirm');
        step = await browser.follow(new URL(confirmed.headers.get('location') ?? '', step.url), CB);
      }
      const tokens = await client.authorizationCodeGrant(config, step.url, { pkceCodeVerifier: verifier, expectedState: state });
      assert.ok(tokens.access_token);
    } finally {
      await stop(s);
    }
  });

  it('removes expired rows as new ones are written', async () => {
    const s = await serveReplica(cluster, { interactionTtlSeconds: 1 });
    try {
      const config = await discover(`${s.origin}/oidc`, 'editor');
      const authUrl = client.buildAuthorizationUrl(config, { redirect_uri: CB, scope: 'openid', code_challenge_method: 'S256',
        code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()) });
      for (let i = 0; i < 20; i++) await anonymousStart(authUrl, `192.0.2.${i}`);
      const expired = async () => (await counts(s.db, 'expires_at <= extract(epoch FROM now())')).Interaction ?? 0;
      // The database's clock decides expiry: wait until it says every row left has expired (a second or two;
      // the starts themselves may have removed the first ones already).
      for (;;) {
        const [gone, all] = [await expired(), (await counts(s.db)).Interaction ?? 0];
        assert.ok(all > 0, 'some rows are left to expire');
        if (gone === all) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await anonymousStart(authUrl, '192.0.2.200');
      assert.equal(await expired(), 0, 'the write removed the expired rows');
      assert.equal((await counts(s.db)).Interaction, 1, 'only the new interaction is left');
    } finally {
      await stop(s);
    }
  });
});
