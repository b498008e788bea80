// The accounts command line: in-process through runAccounts (the exported
// entry), and as a real process for the npm script's entry point, the stdin
// password and the refusal while the service holds the data folder.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chown, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as client from 'openid-client';
import { runAccounts } from '../../cli/accounts.ts';
import { ADMIN_PASSWORD, makeTestApp, TEST_PASSWORD_COST } from '../helpers/app.ts';
import { CB, codeFlow, discover, oidcSettings, startServer } from '../auth/oidc-helpers.ts';

const root = path.resolve(import.meta.dirname, '../..');

async function tempFolder() {
  const dir = await mkdtemp(path.join(tmpdir(), 'mts-cli-'));
  await mkdir(path.join(dir, 'data')); // the CLI opens a folder that exists, and creates none
  const config = path.join(dir, 'settings.yml');
  await writeFile(config, `data:\n  dir: ${JSON.stringify(path.join(dir, 'data'))}\n`);
  return { dir, data: path.join(dir, 'data'), env: { MTS_CONFIG: config } as NodeJS.ProcessEnv };
}

/** Runs the CLI in-process; passwords come from the given list. */
async function cli(env: NodeJS.ProcessEnv, args: string[], passwords: string[] = []) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runAccounts(args, {
    env, out: (l) => out.push(l), err: (l) => err.push(l), readPassword: async () => passwords.shift() ?? '', passwordCost: TEST_PASSWORD_COST,
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('accounts CLI: add, list, set-scopes, set-password, delete', () => {
  let f: Awaited<ReturnType<typeof tempFolder>>;
  before(async () => { f = await tempFolder(); });
  after(() => rm(f.dir, { recursive: true, force: true }));

  it('adds accounts and lists them; notes when nobody holds the admin scope', async () => {
    const added = await cli(f.env, ['add', 'alice', 'svc:maps:read,svc:maps:write', '--name', 'Alice A.', '--email=alice@noc.example'], ['alice password 1']);
    assert.equal(added.code, 0, added.err);
    assert.match(added.out, /created alice with scopes svc:maps:read svc:maps:write/);
    const listed = await cli(f.env, ['list']);
    assert.equal(listed.code, 0);
    assert.equal(listed.out, 'alice\tsvc:maps:read svc:maps:write\tAlice A. <alice@noc.example>');
    assert.match(listed.err, /no account holds svc:admin/);
  });

  // A command line that cannot run is a usage error, 64 (EX_USAGE: 2 says the service holds the folder); what it names refused, 1.
  const refused: Array<[string, string[], string[], 1 | 64, RegExp]> = [
    ['an unknown scope', ['add', 'bob', 'svc:maps:read', 'root'], ['bob password 12'], 1, /scope\.1: "root" is not a configured scope/],
    ['a short password', ['add', 'bob', 'svc:maps:read'], ['short'], 1, /password: must be at least 12 characters/],
    ['a hostile username', ['add', '../etc/passwd', 'svc:maps:read'], ['bob password 12'], 1, /username: expected 1 to 64 letters/],
    ['an existing username', ['add', 'alice', 'svc:maps:read'], ['alice password 2'], 1, /already exists/],
    ['an unknown user', ['set-password', 'nobody'], ['whatever password'], 1, /no user "nobody"/],
    ['an unknown command', ['promote', 'alice'], [], 64, /unknown command "promote"/],
    ['a command named like an object property', ['constructor'], [], 64, /unknown command "constructor"/],
    ['an unknown option', ['add', 'bob', '--admin'], [], 64, /^unknown option --admin\nusage: npm run accounts -- <command>/],
    ['an option without its value', ['add', 'bob', 'svc:maps:read', '--name'], [], 64, /^--name needs a value\nusage: npm run accounts -- <command>/],
    ['no command', [], [], 64, /^missing arguments\nusage: npm run accounts -- <command>/],
    ['an account without scopes', ['add', 'bob'], ['bob password 12'], 64, /^usage: npm run accounts -- add <username> <scope>\.\.\./],
    ['a display name with a line break and a tab', ['add', 'bob', 'svc:maps:read', '--name', 'Bob\nzz-admin\tsvc:admin'], ['bob password 12'], 1,
      /name: must not contain control characters/],
    ['a second username to delete', ['delete', 'alice', 'bob'], [], 64, /^usage: npm run accounts -- delete <username>$/],
    ['set-scopes without scopes', ['set-scopes', 'alice'], [], 64, /^usage: npm run accounts -- set-scopes <username> <scope>\.\.\.$/],
    ['options a command does not take', ['set-scopes', 'alice', 'svc:maps:read', '--name', 'X'], [], 64, /^usage: npm run accounts -- set-scopes/],
    ['arguments to list', ['list', 'everyone'], [], 64, /^usage: npm run accounts -- list$/],
  ];
  for (const args of [['--help'], ['-h'], ['help']]) {
    it(`prints its usage for ${args[0]} (exit 0)`, async () => {
      const r = await cli(f.env, args);
      assert.equal(r.code, 0);
      assert.match(r.out, /^usage: npm run accounts -- <command>\n {2}list/);
    });
  }

  for (const [what, args, pw, code, message] of refused) {
    it(`refuses ${what} (exit ${code}, nothing written)`, async () => {
      const r = await cli(f.env, args, pw);
      assert.equal(r.code, code);
      assert.match(r.err, message);
      assert.doesNotMatch((await cli(f.env, ['list'])).out, /^bob/m);
    });
  }

  it('set-scopes replaces the scopes; the last admin cannot lose svc:admin or be deleted', async () => {
    assert.equal((await cli(f.env, ['set-scopes', 'alice', 'svc:maps:read svc:admin'])).code, 0, 'scopes as list prints them');
    assert.match((await cli(f.env, ['list'])).out, /^alice\tsvc:maps:read svc:admin\t/);
    assert.equal((await cli(f.env, ['set-scopes', 'alice', 'svc:maps:read', 'svc:admin'])).code, 0);
    assert.match((await cli(f.env, ['list'])).out, /^alice\tsvc:maps:read svc:admin\t/);
    const demote = await cli(f.env, ['set-scopes', 'alice', 'svc:maps:read']);
    assert.equal(demote.code, 1);
    assert.match(demote.err, /no user would be left with the svc:admin scope/);
    const del = await cli(f.env, ['delete', 'alice']);
    assert.equal(del.code, 1);
    assert.match(del.err, /svc:admin/);
  });

  it('set-password changes what the service accepts; delete removes the account', async () => {
    assert.equal((await cli(f.env, ['add', 'carol', 'svc:maps:read'], ['carol password 1'])).code, 0);
    assert.equal((await cli(f.env, ['set-password', 'carol'], ['carol password 2'])).code, 0);
    const app = await makeTestApp({ dir: f.data });
    try {
      await assert.rejects(app.token(undefined, 'carol', 'carol password 1'), /400 .*invalid_grant/);
      assert.ok(await app.token(undefined, 'carol', 'carol password 2'));
    } finally {
      await app.close(false);
    }
    assert.equal((await cli(f.env, ['delete', 'carol'])).code, 0);
    assert.doesNotMatch((await cli(f.env, ['list'])).out, /carol/);
  });

  it('refuses politely while the service holds the data folder (exit 2)', async () => {
    const app = await makeTestApp({ dir: f.data });
    try {
      const r = await cli(f.env, ['list']);
      assert.equal(r.code, 2);
      assert.match(r.err, /The service \(process \d+\) is running on .*Stop it, run this command, then start it again/);
    } finally {
      await app.close(false);
    }
  });
});

describe('accounts CLI: which data folder', () => {
  it('refuses a data folder that does not exist, creating nothing, before opening it or asking for a password', async () => {
    const f = await tempFolder();
    try {
      await rm(f.data, { recursive: true });
      for (const args of [['list'], ['add', 'bob', 'svc:maps:read']]) {
        const passwords = ['bob password 12'];
        const r = await cli(f.env, args, passwords);
        assert.equal(r.code, 1);
        assert.match(r.err, new RegExp(`the data folder ${f.data.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} does not exist; check MTS_DATA_DIR`));
        assert.deepEqual(passwords, ['bob password 12'], 'no password was asked for');
      }
      const typo = await cli(f.env, ['lsit']);
      assert.equal(typo.code, 64);
      assert.match(typo.err, /unknown command "lsit"/);
      await assert.rejects(stat(f.data), { code: 'ENOENT' });
    } finally {
      await rm(f.dir, { recursive: true, force: true });
    }
  });

  it('refuses, as root, a folder the service\'s user owns (files it wrote would be root\'s)', { skip: process.geteuid?.() !== 0 && 'needs root' }, async () => {
    const f = await tempFolder();
    try {
      await chown(f.data, 4321, 4321);
      const r = await cli(f.env, ['list']);
      assert.equal(r.code, 1);
      assert.match(r.err, /belongs to uid 4321, the user the service runs as: run this command as that user/);
      assert.deepEqual(await readdir(f.data), []);
    } finally {
      await rm(f.dir, { recursive: true, force: true });
    }
  });
});

describe('accounts CLI: rotate-keys with the basic backend', () => {
  it('replaces the signing key: a token issued before no longer verifies, a new one does', async () => {
    const f = await tempFolder();
    try {
      let app = await makeTestApp({ dir: f.data });
      const before = await app.token();
      await app.close(false);
      const rotated = await cli(f.env, ['rotate-keys']);
      assert.equal(rotated.code, 0, rotated.err);
      assert.match(rotated.out, /^new signing key [0-9a-f]{16}; tokens issued before no longer verify/);
      app = await makeTestApp({ dir: f.data });
      try {
        assert.equal((await app.request('/api/v1/current_user/', { token: before })).status, 401);
        assert.equal((await app.request('/api/v1/current_user/', { token: await app.token() })).status, 200);
      } finally {
        await app.close(false);
      }
    } finally {
      await rm(f.dir, { recursive: true, force: true });
    }
  });
});

describe('accounts CLI: built-in provider', () => {
  it('set-password revokes the account\'s access and refresh tokens; rotate-keys adds a signing key', async () => {
    const first = await startServer(oidcSettings());
    const { port, dir } = first;
    const config = path.join(dir, '..', `${path.basename(dir)}.yml`);
    await writeFile(config, `data:\n  dir: ${JSON.stringify(dir)}\nauth:\n  backend: oidc\n`);
    const env = { MTS_CONFIG: config };
    let second;
    try {
      const editor = await discover(`${first.baseUrl}/oidc`, 'editor');
      const { tokens } = await codeFlow({ config: editor, redirectUri: CB, scope: 'openid svc:maps:read', username: 'admin', password: ADMIN_PASSWORD });
      await first.stop(false);
      const changed = await cli(env, ['set-password', 'admin'], ['a brand new admin password']);
      assert.equal(changed.code, 0, changed.err);
      const rotated = await cli(env, ['rotate-keys']);
      assert.match(rotated.out, /new signing key \S+; 1 previous key\(s\) kept/);
      second = await startServer(oidcSettings(), { dir, port });
      const me = await fetch(`${second.baseUrl}/api/v1/current_user/`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
      assert.equal(me.status, 401);
      await assert.rejects(client.refreshTokenGrant(await discover(`${second.baseUrl}/oidc`, 'editor'), tokens.refresh_token!),
        (e: { error?: string }) => e.error === 'invalid_grant');
    } finally {
      await (second ?? first).stop(true).catch(() => undefined);
      await rm(config, { force: true });
    }
  });
});

describe('accounts CLI: the npm script entry point', () => {
  const run = (args: string[], env: NodeJS.ProcessEnv, stdin = '') => new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'cli/accounts.ts', ...args], { cwd: root, env: { ...process.env, ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    child.on('close', (code) => resolve({ code, out, err }));
    child.stdin.end(stdin);
  });

  it('reads the password from standard input; refuses while another process holds the folder', async () => {
    const f = await tempFolder();
    try {
      const added = await run(['add', 'dave', 'svc:maps:read'], f.env, 'dave password 12\n');
      assert.equal(added.code, 0, added.err);
      assert.match(added.out, /created dave/);
      const app = await makeTestApp({ dir: f.data });
      try {
        const refused = await run(['list'], f.env);
        assert.equal(refused.code, 2);
        assert.match(refused.err, new RegExp(`process ${process.pid}\\) is running`));
      } finally {
        await app.close(false);
      }
      assert.ok(await (async () => {
        const app2 = await makeTestApp({ dir: f.data });
        try { return await app2.token(undefined, 'dave', 'dave password 12'); } finally { await app2.close(false); }
      })());
    } finally {
      await rm(f.dir, { recursive: true, force: true });
    }
  });
});
