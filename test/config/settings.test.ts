import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadSettings, parseSettings, SettingsError } from '../../config/settings.ts';

const root = path.resolve(import.meta.dirname, '../..');

describe('settings: defaults', () => {
  it('fills every documented default', () => {
    const s = parseSettings({}, {}, '/srv/mts');
    assert.equal(s.server.port, 8080);
    assert.equal(s.server.baseUrl, 'http://localhost:8080');
    assert.equal(s.data.dir, '/srv/mts/data');
    assert.equal(s.datasources.spreadsheet.dir, '/srv/mts/data/sheets');
    assert.equal(s.auth.backend, 'basic');
    assert.deepEqual(s.auth.scopes, { read: 'svc:maps:read', write: 'svc:maps:write', publish: 'svc:maps:publish', admin: 'svc:admin' });
    assert.equal(s.auth.tokenTtlSeconds, 3600);
    assert.equal(s.server.bodyLimitBytes, 1024 * 1024);
    assert.equal(s.server.requestTimeoutSeconds, 30);
    assert.equal(s.server.headersTimeoutSeconds, 30);
    assert.equal(s.server.keepAliveTimeoutSeconds, 5);
    assert.equal(s.server.maxConnections, 1000);
    assert.equal(s.server.maxConnectionsPerAddress, 0);
    assert.deepEqual(s.output, { cacheBytes: 64 * 1024 * 1024, pngMaxSide: 8192, pngMaxPixels: 16_777_216,
      pictureCircuits: 20_000, renderTimeoutSeconds: 10, renderMemoryMB: 512, renderThreads: 0, renderQueue: 32 });
  });

  it('the headers time limit follows the request time limit unless set', () => {
    assert.equal(parseSettings({ server: { requestTimeoutSeconds: 10 } }).server.headersTimeoutSeconds, 10);
    assert.equal(parseSettings({ server: { requestTimeoutSeconds: 10, headersTimeoutSeconds: 4 } }).server.headersTimeoutSeconds, 4);
  });
});

describe('settings: environment overrides', () => {
  it('PORT, HOST, MTS_DATA_DIR and MTS_BASE_URL win over the file', () => {
    const s = parseSettings({ server: { port: 1, host: 'a' }, data: { dir: 'x' } },
      { PORT: '9090', HOST: '127.0.0.1', MTS_DATA_DIR: '/var/mts', MTS_BASE_URL: 'https://maps.example.net/' }, '/srv');
    assert.equal(s.server.port, 9090);
    assert.equal(s.server.host, '127.0.0.1');
    assert.equal(s.data.dir, '/var/mts');
    assert.equal(s.server.baseUrl, 'https://maps.example.net');
  });


  it('MTS_STORE_BACKEND and MTS_DATABASE_URL choose PostgreSQL, keeping the file\'s other store keys', () => {
    const url = 'postgresql://mts:secret@db.example.net:5432/mts';
    const s = parseSettings({ store: { backend: 'file' } }, { MTS_STORE_BACKEND: 'postgres', MTS_DATABASE_URL: url });
    assert.equal(s.store.backend, 'postgres');
    assert.equal(s.store.postgres.url, url);
    assert.equal(parseSettings({}).store.backend, 'file', 'the data folder by default');
  });
});

describe('settings: a bad value names the key and what is expected', () => {
  const cases: Array<[string, unknown, RegExp]> = [
    ['port out of range', { server: { port: 70000 } }, /server\.port: expected a port from 0 to 65535/],
    ['unknown backend', { auth: { backend: 'ldap' } }, /auth\.backend: expected basic or oidc \(got "ldap"\)/],
    ['unknown key', { server: { prot: 1 } }, /server\.prot: is not a known setting/],
    ['empty scope', { auth: { scopes: { read: '' } } }, /auth\.scopes\.read: expected one scope: printable ASCII without spaces/],
    ['a scope with a space (tokens separate scopes by spaces)', { auth: { scopes: { admin: 'maps admin' } } }, /auth\.scopes\.admin: expected one scope/],
    ['one scope for two permissions (none implies another)', { auth: { scopes: { read: 'x', write: 'x' } } }, /auth\.scopes: expected four different scopes/],
    ['a section that is not a mapping', { server: 'fast' }, /server: expected a mapping of settings \(got "fast"\)/],
    ['two OIDC clients with one client_id (and no secret in the message)',
      { auth: { oidc: { clients: [{ client_id: 'a', client_secret: 'S3cret-one', grant_types: ['client_credentials'] }, { client_id: 'a', client_secret: 'S3cret-two', grant_types: ['client_credentials'] }] } } },
      /^invalid settings:\n {2}auth\.oidc\.clients: expected each client_id once$/],
    ['a client_secret that is not a string (not echoed)', { auth: { oidc: { clients: [{ client_id: 'a', client_secret: 12345678 }] } } },
      /^invalid settings:\n {2}auth\.oidc\.clients\.0\.client_secret: expected a string$/],
    ['a base URL with a query', { server: { baseUrl: 'https://example.com/x?y=1' } }, /server\.baseUrl: expected a URL without \?query or #fragment/],
    ['a redirect URI with a fragment', { auth: { oidc: { clients: [{ client_id: 'a', redirect_uris: ['https://a.example/cb#x'] }] } } },
      /auth\.oidc\.clients\.0\.redirect_uris\.0: expected a URL without a #fragment/],
    ['bad base URL', { server: { baseUrl: 'localhost' } }, /server\.baseUrl: expected an absolute URL/],
    ['a headers time limit over the request time limit', { server: { requestTimeoutSeconds: 10, headersTimeoutSeconds: 20 } },
      /^invalid settings:\n {2}server\.headersTimeoutSeconds: expected at most server\.requestTimeoutSeconds \(10\), as the headers are part of the request \(got 20\)$/],
    ['a request time limit of 0', { server: { requestTimeoutSeconds: 0 } }, /server\.requestTimeoutSeconds: expected a positive integer \(got 0\)/],
    ['a time limit over a day', { server: { keepAliveTimeoutSeconds: 100000 } }, /server\.keepAliveTimeoutSeconds: expected at most 86400 \(one day\)/],
    ['a connection cap that is not a number', { server: { maxConnections: 'many' } }, /server\.maxConnections: expected a number \(got "many"\)/],
    ['a negative output cache', { output: { cacheBytes: -1 } }, /output\.cacheBytes: expected 0 or more \(got -1\)/],
    ['a PNG side over 16384', { output: { pngMaxSide: 20000 } }, /output\.pngMaxSide: expected at most 16384 \(got 20000\)/],
    ['a PNG pixel budget of 0', { output: { pngMaxPixels: 0 } }, /output\.pngMaxPixels: expected a positive integer \(got 0\)/],
    ['non-numeric PORT', {}, /server\.port: expected a number \(got "eighty"\)/],
    ['an unknown store backend', { store: { backend: 'mysql' } }, /store\.backend: expected file or postgres \(got "mysql"\)/],
    ['postgres without a database URL', { store: { backend: 'postgres' } },
      /store\.postgres\.url: expected store\.postgres\.url \(or MTS_DATABASE_URL\) with store\.backend: postgres/],
    ['a database URL that is not one (its password never echoed)', { store: { postgres: { url: 'mts:S3cret@db' } } },
      /^invalid settings:\n {2}store\.postgres\.url: expected a URL such as postgresql:\/\/user:password@host:5432\/database$/],
    ['an unknown log format', { log: { format: 'xml' } }, /log\.format: expected text or json \(got "xml"\)/],
    ['an unknown log level', { log: { level: 'verbose' } }, /log\.level: expected debug, info, warn, error or silent \(got "verbose"\)/],
    ['a short metrics token (never echoed)', { metrics: { token: 'short' } },
      /^invalid settings:\n {2}metrics\.token: expected at least 16 printable characters without spaces$/],
  ];
  for (const [name, raw, message] of cases) {
    it(name, () => {
      const env = name === 'non-numeric PORT' ? { PORT: 'eighty' } : {};
      assert.throws(() => parseSettings(raw, env), (e: unknown) => e instanceof SettingsError && message.test(e.message));
    });
  }

  it('a section left empty in YAML (every key commented out) is the defaults', () => {
    const s = parseSettings({ server: null, auth: { scopes: null, loginThrottle: null } }, {}, '/srv');
    assert.equal(s.server.port, 8080);
    assert.equal(s.auth.scopes.read, 'svc:maps:read');
    assert.equal(s.auth.loginThrottle.maxFailures, 10);
  });

  it('reads YAML from MTS_CONFIG and refuses a missing file', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'mts-settings-'));
    try {
      await writeFile(path.join(dir, 'conf.yml'), 'server:\n  port: 8181\nauth:\n  tokenTtlSeconds: 60\n');
      const s = loadSettings({ MTS_CONFIG: 'conf.yml' }, dir);
      assert.equal(s.server.port, 8181);
      assert.equal(s.auth.tokenTtlSeconds, 60);
      assert.throws(() => loadSettings({ MTS_CONFIG: 'missing.yml' }, dir), /does not exist/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('the service refuses to start on a port in use, naming the settings, and frees the data folder', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'mts-settings-'));
    const busy = net.createServer().listen(0, '127.0.0.1');
    await once(busy, 'listening');
    try {
      const port = (busy.address() as net.AddressInfo).port;
      const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), path.join(root, 'server.ts')],
        { cwd: dir, env: { ...process.env, MTS_DATA_DIR: path.join(dir, 'data'), PORT: String(port), HOST: '127.0.0.1', MTS_ADMIN_PASSWORD: 'settings test pass' }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      assert.equal(code, 1);
      assert.match(stderr, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port} \\(settings server\\.host / server\\.port, or HOST / PORT\\): EADDRINUSE`));
      assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');
      await assert.rejects(stat(path.join(dir, 'data', '.lock')), { code: 'ENOENT' });
    } finally {
      busy.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('the service refuses to start with a bad settings file, naming the key', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'mts-settings-'));
    try {
      await writeFile(path.join(dir, 'settings.yml'), 'auth:\n  tokenTtlSeconds: -5\n');
      const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), path.join(root, 'server.ts')],
        { cwd: dir, env: { ...process.env, MTS_DATA_DIR: path.join(dir, 'data'), PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      assert.notEqual(code, 0);
      assert.match(stderr, /auth\.tokenTtlSeconds: expected a positive integer/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
