// Replicas started at the same moment on an empty PostgreSQL database (what
// `compose up` with two replicas does) agree on everything the first start
// creates: one signing key, so a token issued by either is accepted by the
// other, one first admin, whose printed password works on both, and one set
// of default node templates (two, not two per replica). Each
// round is a fresh database and two real services (serve(), listening on
// 127.0.0.1, the admin created once listening) started together; several
// rounds, because which replica wins differs from one to the next.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createMemoryLogger } from '../../log.ts';
import { serve } from '../../server.ts';
import { noPostgres, startCluster, type Cluster } from '../helpers/postgres.ts';

const ROUNDS = 5;
const PUBLIC_URL = 'http://127.0.0.1:9'; // behind one load balancer, both replicas share its URL

type Started = Awaited<ReturnType<typeof serve>> & { origin: string; log: ReturnType<typeof createMemoryLogger> };

async function startTogether(url: string, dir: string, settingsFile?: string): Promise<Started[]> {
  const one = async (): Promise<Started> => {
    const log = createMemoryLogger();
    const env = { PORT: '0', HOST: '127.0.0.1', MTS_BASE_URL: PUBLIC_URL, MTS_DATA_DIR: dir, MTS_STORE_BACKEND: 'postgres',
      MTS_DATABASE_URL: url, ...(settingsFile && { MTS_CONFIG: settingsFile }) };
    const started = await serve(env, { log, signals: false });
    return { ...started, log, origin: `http://127.0.0.1:${(started.server.address() as AddressInfo).port}` };
  };
  return Promise.all([one(), one()]);
}

async function stop(replicas: Started[]) {
  for (const r of replicas) {
    r.server.closeAllConnections();
    await new Promise((resolve) => r.server.close(resolve));
    await r.store.close();
  }
}

const json = async (res: Response) => {
  assert.equal(res.status, 200, await res.clone().text());
  return res.json() as Promise<Record<string, unknown>>;
};

/**
 * The list at `target` once both replicas answer it alike: what one replica
 * wrote reaches the other by a notification, which comes when it comes (no
 * deadline but a guard against a hang).
 */
async function eventuallySame(replicas: Started[], target: string, token: string): Promise<Array<Record<string, unknown>>> {
  const guard = Date.now() + 120_000;
  for (;;) {
    const lists = await Promise.all(replicas.map(async (r) => (await json(await fetch(`${r.origin}${target}`, { headers: { authorization: `Bearer ${token}` } }))) as unknown as Array<Record<string, unknown>>));
    if (JSON.stringify(lists[0]) === JSON.stringify(lists[1])) return lists[0];
    if (Date.now() > guard) assert.deepEqual(lists[0], lists[1], 'the replicas still list different things');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('replicas starting together on an empty database', { skip: noPostgres }, () => {
  let cluster: Cluster;
  let dir: string;
  before(async () => {
    cluster = await startCluster();
    dir = await mkdtemp(path.join(tmpdir(), 'mts-first-start-'));
  });
  after(async () => {
    await cluster?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it(`basic backend: one admin and one signing key, ${ROUNDS} rounds`, async () => {
    for (let round = 1; round <= ROUNDS; round++) {
      const replicas = await startTogether(await cluster.createDatabase(), dir);
      try {
        const lines = replicas.flatMap((r) => r.log.lines);
        const created = lines.flatMap((l) => l.match(/created user admin with password (\S+)/)?.[1] ?? []);
        assert.equal(created.length, 1, `round ${round}: exactly one replica creates admin:\n${lines.join('\n')}`);
        const password = created[0];
        const tokens = await Promise.all(replicas.map(async (r) => (await json(await fetch(`${r.origin}/api/v1/auth/token`, {
          method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ grant_type: 'password', username: 'admin', password }),
        }))).access_token as string));
        const [a, b] = replicas;
        for (const [token, on] of [[tokens[0], b], [tokens[1], a]] as const) {
          const me = await json(await fetch(`${on.origin}/api/v1/current_user/`, { headers: { authorization: `Bearer ${token}` } }));
          assert.equal(me.username, 'admin', `round ${round}`);
        }
        const admins = await Promise.all(replicas.map(async (r) => (await (await fetch(`${r.origin}/api/v1/user/`, { headers: { authorization: `Bearer ${tokens[0]}` } })).json()) as Array<Record<string, unknown>>));
        assert.deepEqual(admins[0], admins[1], `round ${round}: both list the same users`);
        assert.deepEqual(admins[0].map((u) => u.username), ['admin']);
        const templates = await eventuallySame(replicas, '/api/v1/templates/', tokens[0]);
        assert.deepEqual(templates.map((t) => t.name).sort(), ['Default geographic marker', 'Default logical label'], `round ${round}: the defaults once`);
      } finally {
        await stop(replicas);
      }
    }
  });

  it('built-in provider: both replicas serve one key set, and a token from one is accepted by the other', async () => {
    const settingsFile = path.join(dir, 'settings.yml');
    // JSON is YAML: the provider with one machine client.
    await writeFile(settingsFile, JSON.stringify({ auth: { backend: 'oidc', oidc: { issuer: 'builtin', clients: [
      { client_id: 'robot', client_secret: 'robot secret value', grant_types: ['client_credentials'], scope: 'svc:maps:read' }] } } }));
    for (let round = 1; round <= 2; round++) {
      const replicas = await startTogether(await cluster.createDatabase(), dir, settingsFile);
      try {
        const [keysA, keysB] = await Promise.all(replicas.map(async (r) => json(await fetch(`${r.origin}/oidc/jwks`))));
        assert.deepEqual(keysA, keysB, `round ${round}: one key set`);
        const issued = await json(await fetch(`${replicas[0].origin}/oidc/token`, {
          method: 'POST',
          headers: { authorization: `Basic ${Buffer.from('robot:robot secret value').toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=client_credentials&scope=svc%3Amaps%3Aread',
        }));
        const list = await fetch(`${replicas[1].origin}/api/v1/maps/`, { headers: { authorization: `Bearer ${issued.access_token}` } });
        assert.equal(list.status, 200, `round ${round}: ${await list.clone().text()}`);
      } finally {
        await stop(replicas);
      }
    }
  });
});
