// serve(), through the real entry point: a stop (SIGTERM, as systemd or
// docker send it) lets a request in flight finish, answered and on disk,
// then releases the data folder and exits 0.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO, runTs, waitForOutput, type Child } from './store/child.ts';

const LISTENING = /bound to 127\.0\.0\.1:(\d+)/;
const PASSWORD = 'graceful stop test';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One request on `agent`; the body is written in two halves, `between` running after the first. */
function request(agent: http.Agent, port: number, method: string, url: string, body?: string, headers: Record<string, string> = {},
  between?: () => Promise<void>): Promise<{ status: number; json: Record<string, any> }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: url, agent, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, json: text ? JSON.parse(text) : {} }));
    });
    req.on('error', reject);
    if (body === undefined) return void req.end();
    const half = Math.floor(body.length / 2);
    req.write(body.slice(0, half));
    void (between ?? (async () => undefined))().then(() => req.end(body.slice(half)), reject);
  });
}

describe('stopping the service', () => {
  let tmp: string;
  let child: Child;
  before(async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'mts-stop-'));
    // A kept-alive connection the service would keep for a day: a stop that waited for it would end only at the
    // stop's grace period, with exit code 1, so the exit code shows that the stop closed the idle connection.
    await writeFile(path.join(tmp, 'settings.yml'), 'server:\n  keepAliveTimeoutSeconds: 86400\n');
    child = runTs(path.join(REPO, 'server.ts'), [], {
      MTS_CONFIG: path.join(tmp, 'settings.yml'), MTS_DATA_DIR: path.join(tmp, 'data'), PORT: '0', HOST: '127.0.0.1', MTS_ADMIN_PASSWORD: PASSWORD,
    });
  });
  after(async () => {
    if (child.proc.exitCode === null && child.proc.signalCode === null) child.proc.kill('SIGKILL');
    await child.exited;
    await rm(tmp, { recursive: true, force: true });
  });

  it('on SIGTERM answers the PUT in flight, stores it, releases the folder and exits 0', async () => {
    const port = Number((await waitForOutput(child, LISTENING))[1]);
    // One kept-alive connection, so the PUT rides a connection the service has surely accepted.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const token = (await request(agent, port, 'POST', '/api/v1/auth/token', JSON.stringify({ grant_type: 'password', username: 'admin', password: PASSWORD }))).json.access_token;
    const auth = { authorization: `Bearer ${token}` };
    const created = await request(agent, port, 'POST', '/api/v1/map/', JSON.stringify({ name: 'before the stop', configuration: { layers: [] } }), auth);
    assert.equal(created.status, 201);
    const id = created.json.mapId as string;

    const put = await request(agent, port, 'PUT', `/api/v1/map/id/${id}/`, JSON.stringify({ name: 'sent across the stop', configuration: { layers: [] } }), auth,
      async () => {
        await sleep(200); // the first half has reached the service
        child.proc.kill('SIGTERM');
        await waitForOutput(child, /SIGTERM: finishing the requests in flight/);
      });
    assert.equal(put.status, 200);
    assert.equal(put.json.version, 2);

    // The connection stays open on our side: the service closes it once idle rather than waiting
    // out its keep-alive timeout (a day here), which would end the stop at its grace period with code 1.
    assert.equal(await child.exited, 0, child.stdout() + child.stderr());
    agent.destroy();
    const stored = JSON.parse(await readFile(path.join(tmp, 'data', 'maps', id, 'v2.json'), 'utf8'));
    assert.equal(stored.name, 'sent across the stop');
    await assert.rejects(stat(path.join(tmp, 'data', '.lock')), { code: 'ENOENT' });
  });
});
