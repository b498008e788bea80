// The built-in provider over two replicas sharing one PostgreSQL database
// (docs/deployment.md, "Several replicas"): a sign-in begun on one replica is finished on
// the other, because interactions, sessions and authorization codes are
// shared through the database, not kept in one process's memory.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getRequestListener } from '@hono/node-server';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as client from 'openid-client';
import { ADMIN_PASSWORD } from '../helpers/app.ts';
import { noPostgres, startCluster, type Cluster } from '../helpers/postgres.ts';
import { startReplica, type Replica } from '../helpers/replica.ts';
import { Browser, CB, discover, oidcSettings } from './oidc-helpers.ts';

type Served = { replica: Replica; server: Server; origin: string };

const listening = async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
};

/** The same URL on another replica (what a load balancer does when it picks another backend). */
const on = (url: string | URL, target: Served) => {
  const moved = new URL(url);
  moved.host = new URL(target.origin).host;
  return moved;
};

describe('built-in provider over two replicas', { skip: noPostgres }, () => {
  let cluster: Cluster;
  let a: Served;
  let b: Served;

  before(async () => {
    cluster = await startCluster();
    const url = await cluster.createDatabase();
    const [first, second] = [await listening(), await listening()];
    // Replicas behind one load balancer share its public URL: A's stands for it.
    const settings = { ...oidcSettings(), server: { baseUrl: first.origin } };
    const serve = async (l: { server: Server; origin: string }): Promise<Served> => {
      const replica = await startReplica(url, settings);
      l.server.on('request', getRequestListener(replica.app.fetch));
      return { replica, ...l };
    };
    a = await serve(first);
    b = await serve(second);
  });
  after(async () => {
    for (const s of [a, b]) {
      if (!s) continue;
      s.server.closeAllConnections();
      await new Promise<void>((resolve) => s.server.close(() => resolve()));
      await s.replica.close();
    }
    await cluster?.stop();
  });

  it('begins the authorization on A, takes the login form and the consent on B, exchanges the code on B, and the token works on A', async () => {
    const editor = await discover(`${a.origin}/oidc`, 'editor');
    const browser = new Browser();
    const verifier = client.randomPKCECodeVerifier();
    const authUrl = client.buildAuthorizationUrl(editor, { redirect_uri: CB, scope: 'openid svc:maps:read', state: 'across',
      code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
    const page = await browser.follow(authUrl, CB); // on A: the login page of a new interaction
    assert.equal(page.res.status, 200);
    const html = await page.res.text();
    assert.match(html, /name="password"/);

    // Everything from here on B.
    let res = await browser.submit(on(page.url, b), html, '/login', { username: 'admin', password: ADMIN_PASSWORD });
    assert.equal(res.status, 303, await res.clone().text());
    let at = on(new URL(res.headers.get('location')!, page.url), b);
    for (let hops = 0; hops < 10 && !at.href.startsWith(CB); hops++) {
      res = await browser.fetch(at);
      if (res.status === 200) {
        res = await browser.submit(at, await res.text(), '/confirm'); // the consent page
        assert.equal(res.status, 303, await res.clone().text());
      }
      assert.ok(res.status >= 300 && res.status < 400, `a redirect, got ${res.status}: ${await res.clone().text()}`);
      const next = new URL(res.headers.get('location')!, at);
      at = next.href.startsWith(CB) ? next : on(next, b);
    }
    assert.ok(at.href.startsWith(CB), `back at the client: ${at.href}`);
    assert.equal(at.searchParams.get('state'), 'across');
    const code = at.searchParams.get('code');
    assert.ok(code, `a code: ${at.href}`);

    const exchanged = await fetch(`${b.origin}/oidc/token`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: CB, client_id: 'editor', code_verifier: verifier }).toString(),
    });
    assert.equal(exchanged.status, 200, await exchanged.clone().text());
    const tokens = (await exchanged.json()) as { access_token: string; scope: string };
    assert.equal(tokens.scope, 'svc:maps:read');
    const me = await fetch(`${a.origin}/api/v1/current_user/`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    assert.equal(me.status, 200);
    assert.equal(((await me.json()) as { username: string }).username, 'admin');

    // The code was consumed for every replica: a second exchange, on A, is refused.
    const again = await fetch(`${a.origin}/oidc/token`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: CB, client_id: 'editor', code_verifier: verifier }).toString(),
    });
    assert.equal(again.status, 400);
    assert.equal(((await again.json()) as { error: string }).error, 'invalid_grant');
  });
});
