// Known addresses survive a restart (docs/api.md: Login throttling): a user
// who signed in from an address within knownAddressDays is not locked out
// there by a stranger's failed passwords after the service restarts on the
// same data folder, while a new address is. (With PostgreSQL they live in the
// replicas' shared counters, which the database keeps.)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SettingsInput } from '../../config/settings.ts';
import { ADMIN_PASSWORD, makeTestApp, type TestApp } from '../helpers/app.ts';

const SETTINGS: SettingsInput = { auth: { loginThrottle: { perUsername: { maxFailures: 5 } } } };
const attempt = (t: TestApp, password: string, remoteAddress: string) =>
  t.request('/api/v1/auth/token', { method: 'POST', remoteAddress, json: { grant_type: 'password', username: 'admin', password } });

describe('known addresses across a restart', () => {
  it("a stranger's failures after a restart do not lock the user out of the address they signed in from", async () => {
    const home = '203.0.113.10';
    const first = await makeTestApp({ settings: SETTINGS });
    assert.equal((await attempt(first, ADMIN_PASSWORD, home)).status, 200);
    await first.close(false);
    const again = await makeTestApp({ settings: SETTINGS, dir: first.dir });
    try {
      for (let i = 0; i < 6; i++) await attempt(again, `guess ${i}`, `198.51.100.${i}`);
      assert.equal((await attempt(again, ADMIN_PASSWORD, '198.51.100.200')).status, 429, 'a new address is blocked');
      assert.equal((await attempt(again, ADMIN_PASSWORD, home)).status, 200, 'the address known before the restart is not');
    } finally {
      await again.close(true);
    }
  });
});
