import { it } from 'node:test';
import { passwordChecks, verifyPassword } from '../auth/passwords.ts';
import { ADMIN_PASSWORD, makeTestApp } from '../test/helpers/app.ts';
it('measure', async () => {
  const t = await makeTestApp({});
  const attempt = (u: string, p: string, a: string) => t.request('/api/v1/auth/token', { method: 'POST', remoteAddress: a, json: { grant_type: 'password', username: u, password: p } });
  await attempt('admin', ADMIN_PASSWORD, '203.0.113.10');
  let checks = 0;
  const orig = passwordChecks.verify;
  passwordChecks.verify = (p, h) => { checks++; return verifyPassword(p, h); };
  const start = performance.now();
  let knownMs = 0, strangerStatus = 0;
  // attack waves for 5 s: 100 addresses x 9 usernames, each retrying after its answer
  const stop = start + 5000;
  const statuses: Record<number, number> = {};
  const worker = async (i: number) => { let n = 0; while (performance.now() < stop) { const r = await attempt(i % 9 ? `user${i % 9}` : 'admin', `guess ${n++}`, `198.51.100.${Math.floor(i / 9)}`); statuses[r.status] = (statuses[r.status] ?? 0) + 1; if (r.status === 429) await new Promise((res) => setTimeout(res, Number(r.headers.get('retry-after')) * 1000)); } };
  const workers = Array.from({ length: 900 }, (_, i) => worker(i));
  await new Promise((r) => setTimeout(r, 2000));
  const k0 = performance.now(); const kr = await attempt('admin', ADMIN_PASSWORD, '203.0.113.10'); knownMs = performance.now() - k0;
  const s0 = performance.now(); const sr = await attempt('admin', ADMIN_PASSWORD, '192.0.2.99'); const sMs = performance.now() - s0; strangerStatus = sr.status;
  await Promise.all(workers);
  passwordChecks.verify = orig;
  console.log({ knownStatus: kr.status, knownMs: Math.round(knownMs), strangerStatus, sMs: Math.round(sMs), checks, statuses, totalMs: Math.round(performance.now() - start) });
  await t.close();
});
