// One process owns a data folder, through the real entry point: server.ts
// started twice on one folder, the second exits non-zero naming the folder,
// the owner's pid and the fix; after the owner is SIGKILLed a new start takes
// the stale lock over.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO, runTs, waitForOutput, type Child } from './child.ts';

const SERVER = path.join(REPO, 'server.ts');
const LISTENING = /bound to 127\.0\.0\.1:(\d+)/;

describe('a second instance on the same data folder', () => {
  let tmp: string;
  let env: NodeJS.ProcessEnv;
  const started: Child[] = [];
  const start = () => {
    const child = runTs(SERVER, [], env);
    started.push(child);
    return child;
  };

  before(async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'mts-second-instance-'));
    const config = path.join(tmp, 'settings.yml');
    await writeFile(config, '{}\n');
    env = { MTS_CONFIG: config, MTS_DATA_DIR: path.join(tmp, 'data'), PORT: '0', HOST: '127.0.0.1', MTS_ADMIN_PASSWORD: 'second instance test' };
  });
  after(async () => {
    for (const child of started) if (child.proc.exitCode === null && child.proc.signalCode === null) child.proc.kill('SIGKILL');
    await Promise.all(started.map((c) => c.exited));
    await rm(tmp, { recursive: true, force: true });
  });

  it('refuses to start, exits non-zero and says which process holds the folder', async () => {
    const first = start();
    const port = (await waitForOutput(first, LISTENING))[1];
    const second = start();
    const code = await second.exited;
    assert.notEqual(code, 0);
    const dataDir = env.MTS_DATA_DIR!;
    assert.match(second.stderr(), new RegExp(`data folder ${dataDir} is in use by process ${first.pid}; stop it or point MTS_DATA_DIR elsewhere`));
    assert.doesNotMatch(second.stderr(), /\n\s+at /, 'a message, not a stack trace');
    // The first instance is unaffected.
    const res = await fetch(`http://127.0.0.1:${port}/healthz`);
    assert.equal(res.status, 200);
    assert.equal(await readFile(path.join(dataDir, '.lock'), 'utf8'), `${first.pid}\n`);
  });

  it('starts after the owner was killed with SIGKILL (stale lock), and a clean stop removes the lock', async () => {
    const owner = started[0];
    owner.proc.kill('SIGKILL');
    await owner.exited;
    const next = start();
    await waitForOutput(next, LISTENING);
    assert.equal(await readFile(path.join(env.MTS_DATA_DIR!, '.lock'), 'utf8'), `${next.pid}\n`);
    next.proc.kill('SIGTERM');
    assert.equal(await next.exited, 0);
    await assert.rejects(stat(path.join(env.MTS_DATA_DIR!, '.lock')), { code: 'ENOENT' });
  });
});
