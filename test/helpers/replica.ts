// One replica of the service over a PostgreSQL database, in this process: the
// real app from createApp on its own store instance, with request and token
// shortcuts like makeTestApp's. Several over one database are the replicas a
// load balancer would spread requests over.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseSettings, type SettingsInput } from '../../config/settings.ts';
import { createMemoryLogger } from '../../log.ts';
import { createApp } from '../../server.ts';
import { openPostgresStore } from '../../store/postgres/adapter.ts';
import { ADMIN_PASSWORD, type RequestInit2 } from './app.ts';

/** `more`: settings besides the store's (auth, server), as in config.yaml. */
export async function startReplica(url: string, more: SettingsInput = {}) {
  const dir = await mkdtemp(path.join(tmpdir(), 'mts-replica-'));
  const settings = parseSettings({ ...more, data: { dir }, store: { backend: 'postgres', postgres: { url } } }, {}, dir);
  const log = createMemoryLogger();
  const store = await openPostgresStore(url, { log: (m) => log.info(m) });
  const app = await createApp({ settings, store, log, adminPassword: ADMIN_PASSWORD, passwordCost: 10 });
  const request = async (target: string, init: RequestInit2 = {}): Promise<Response> => {
    const headers = new Headers(init.headers);
    if (init.token) headers.set('Authorization', `Bearer ${init.token}`);
    if (init.json !== undefined) headers.set('Content-Type', 'application/json');
    const env = init.remoteAddress ? { incoming: { socket: { remoteAddress: init.remoteAddress, remotePort: 40000, remoteFamily: 'IPv4' } } } : undefined;
    return app.request(target, { ...init, headers, body: init.json !== undefined ? JSON.stringify(init.json) : init.body }, env);
  };
  const token = async () => {
    const res = await request('/api/v1/auth/token', { method: 'POST', json: { grant_type: 'password', username: 'admin', password: ADMIN_PASSWORD } });
    if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { access_token: string }).access_token;
  };
  const close = async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  };
  return { app, store, log, request, token, close };
}

export type Replica = Awaited<ReturnType<typeof startReplica>>;
