// The built-in provider's sign-ins in progress under a flood of anonymous
// starts (docs/api.md: Limits of the work a request may cause), on this
// process's entries (the data folder): one address keeps at most its share of
// a kind, so its flood evicts its own entries first; an interaction whose
// login form was shown survives any number of starts from others; and end to
// end, a real sign-in completes after a flood of anonymous starts that
// overflows auth.oidc.maxInteractions many times while its form is open.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as client from 'openid-client';
import { MemoryEntries } from '../../auth/oidc/memory-entries.ts';
import { ADMIN_PASSWORD } from '../helpers/app.ts';
import { Browser, CB, discover, oidcSettings, startServer } from './oidc-helpers.ts';

const entry = (owner: string, n: number) => ({ payload: { n }, exp: Math.floor(Date.now() / 1000) + 600, owner });

describe('MemoryEntries: bounds per address', () => {
  it('a flood from one address evicts its own entries, not those of others', async () => {
    const entries = new MemoryEntries(1000); // a share of 10 an address
    await entries.set('Interaction', 'theirs', entry('203.0.113.7', 0));
    for (let i = 0; i < 5000; i++) await entries.set('Interaction', `flood-${i}`, entry('198.51.100.1', i));
    assert.ok(await entries.get('Interaction', 'theirs'), 'the other address keeps its entry');
    assert.equal(entries.counts().Interaction, 11);
    assert.ok(await entries.get('Interaction', 'flood-4999'), 'the newest of the flood is kept');
    assert.equal(await entries.get('Interaction', 'flood-0'), undefined);
  });

  it('an interaction whose login form was shown survives a flood of starts from many addresses', async () => {
    const entries = new MemoryEntries(100);
    await entries.set('Interaction', 'signing-in', entry('203.0.113.7', 0));
    entries.keep('Interaction', 'signing-in');
    await entries.set('Interaction', 'not-shown', entry('203.0.113.8', 0));
    for (let i = 0; i < 3000; i++) await entries.set('Interaction', `start-${i}`, entry(`10.0.${i >> 8}.${i & 255}`, i));
    assert.ok(await entries.get('Interaction', 'signing-in'), 'the sign-in under way is still there');
    assert.equal(await entries.get('Interaction', 'not-shown'), undefined, 'an interaction never shown is evicted as before');
    assert.equal(entries.counts().Interaction, 100);
  });
});

describe('GET /oidc/auth flood against a real sign-in', () => {
  it('the sign-in whose form is open completes after 500 anonymous starts over a bound of 50', async () => {
    const srv = await startServer(oidcSettings({ maxInteractions: 50 }));
    try {
      const config = await discover(`${srv.baseUrl}/oidc`, 'editor');
      const browser = new Browser();
      const verifier = client.randomPKCECodeVerifier();
      const state = client.randomState();
      const authUrl = client.buildAuthorizationUrl(config, { redirect_uri: CB, scope: 'openid svc:maps:read', state,
        code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
      const page = await browser.follow(authUrl, CB);
      const html = await page.res.text();
      assert.match(html, /Password/);
      // Anonymous starts: each a new interaction, no cookie kept.
      for (let i = 0; i < 500; i++) {
        const res = await fetch(authUrl, { redirect: 'manual' });
        await res.arrayBuffer();
        assert.equal(res.status, 303);
      }
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
      await srv.stop();
    }
  });
});
