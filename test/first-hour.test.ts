// The first hour with the service, through its public surface: the README's
// first two code blocks run as written (`npm start` for real, each curl as
// the same HTTP request), MTS_ADMIN_PASSWORD given once admin exists, a start
// on a port in use, a SIGTERM to the `npm start` process and to the service,
// and the answer to `Authorization: Bearer null`. Every service runs on its
// own copy of the demo data folder, on a free port of 127.0.0.1.
import { TEST_PASSWORD_COST } from './helpers/app.ts';
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { verifyPassword } from '../auth/passwords.ts';
import { UserDirectory } from '../auth/users.ts';
import { openFileStore } from '../store/file.ts';
import { REPO, waitForOutput, type Child } from './store/child.ts';

const LISTENING = /Map Topology Service listening on \S+ \(bound to 127\.0\.0\.1:(\d+)\)/;
/** The host and port the README's commands name: the defaults. */
const README_ORIGIN = 'localhost:8080';

// ---------------------------------------------------------------------------
// Processes: every child runs in a process group of its own (detached), so
// after() can end whatever it started, npm, shell and service alike.

const children: Child[] = [];
const folders: string[] = [];

after(async () => {
  for (const child of children) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch { /* ended already */ }
  }
  await Promise.all(children.map((c) => c.exited));
  await Promise.all(folders.map((f) => rm(f, { recursive: true, force: true })));
});

function run(command: string, args: string[], env: NodeJS.ProcessEnv, input?: string): Child {
  const proc = spawn(command, args, { cwd: REPO, env, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'], detached: true });
  if (input !== undefined) proc.stdin!.end(input);
  let out = '';
  let err = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | string>((resolve) => proc.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  const child = { proc, pid: proc.pid!, stdout: () => out, stderr: () => err, exited };
  children.push(child);
  return child;
}

/** A command line run by the shell as a user would type it. */
const shell = (line: string, env: NodeJS.ProcessEnv, input?: string) => run('sh', ['-c', line], env, input);

/** `npm start` itself: its pid is npm's. */
const npmStart = (env: NodeJS.ProcessEnv) => run('npm', ['start'], env);

/**
 * Resolves with the exit code, or fails after `ms`: a guard against a hang, not a time the exit must beat (a start
 * refused on a port in use took over 8 s to exit at a load average of 27).
 */
async function exitOf(child: Child, ms = 120_000): Promise<number | string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still running after ${ms} ms:\n${child.stdout()}\n${child.stderr()}`)), ms);
  });
  try {
    return await Promise.race([child.exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A port of 127.0.0.1 that nothing listens on (it was free a moment ago). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Whether something can listen on the port now. */
async function portIsFree(port: number): Promise<boolean> {
  const server = net.createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

const exists = (file: string) => stat(file).then(() => true, () => false);

/** The pid's parent, from /proc (Linux). */
async function parentOf(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).replace(/^.*\) /s, '').split(' ');
  return Number(fields[1]);
}

function alive(pid: number) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A copy of the committed demo data folder (without the runtime state a local
 * start leaves in it), a free port and the environment that points the
 * service at them; the settings file is an empty one, so a developer's
 * ./settings.yml plays no part.
 */
async function workspace() {
  const tmp = await mkdtemp(path.join(tmpdir(), 'mts-first-hour-'));
  folders.push(tmp);
  const data = path.join(tmp, 'data');
  const source = path.join(REPO, 'data');
  await cp(source, data, {
    recursive: true,
    filter: (src) => !['private', '.lock'].includes(path.relative(source, src).split(path.sep)[0]),
  });
  await writeFile(path.join(tmp, 'settings.yml'), '{}\n');
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', MTS_DATA_DIR: data, MTS_CONFIG: path.join(tmp, 'settings.yml') };
  delete env.MTS_ADMIN_PASSWORD;
  return { tmp, data, port, env, base: `http://127.0.0.1:${port}`, lock: path.join(data, '.lock'), usersFile: path.join(data, 'private', 'users.json') };
}
type Workspace = Awaited<ReturnType<typeof workspace>>;

const tokenRequest = (w: Workspace, username: string, password: string) => fetch(`${w.base}/api/v1/auth/token`, {
  method: 'POST', body: new URLSearchParams({ grant_type: 'password', username, password }),
});

// ---------------------------------------------------------------------------
// The README's commands: its code blocks, and each command run as written.

async function readmeBlocks(): Promise<string[]> {
  const readme = await readFile(path.join(REPO, 'README.md'), 'utf8');
  return [...readme.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
}

/** A block's commands: continuation lines joined, comments and blank lines dropped, `a && b` split. */
function commandsOf(block: string): string[] {
  return block.replace(/\\\n\s*/g, ' ').split('\n')
    .map((line) => line.replace(/(^|\s)#.*$/, '').trim())
    .filter(Boolean)
    .flatMap((line) => line.split(/\s*&&\s*/));
}

/** POSIX shell words: quotes, backslashes, and $VAR inside double quotes and bare words. */
function shellWords(line: string, vars: Record<string, string>): string[] {
  const words: string[] = [];
  let word: string | undefined;
  const expand = (s: string) => s.replace(/\$(?:\{(\w+)\}|(\w+))/g, (_, a, b) => vars[a ?? b] ?? '');
  for (const [token] of line.matchAll(/'[^']*'|"(?:[^"\\]|\\.)*"|\\.|\s+|[^'"\\\s]+/g)) {
    if (/^\s+$/.test(token)) {
      if (word !== undefined) words.push(word);
      word = undefined;
      continue;
    }
    const part = token.startsWith("'") ? token.slice(1, -1)
      : token.startsWith('"') ? expand(token.slice(1, -1).replace(/\\(["\\$`])/g, '$1'))
        : token.startsWith('\\') ? token.slice(1)
          : expand(token);
    word = (word ?? '') + part;
  }
  if (word !== undefined) words.push(word);
  return words;
}

interface CurlResult { status: number; headers: Headers; body: string }

/** The request a curl command line sends (the options the README uses; any other fails), to the workspace's port. */
async function curl(args: string[], w: Workspace): Promise<CurlResult> {
  let method: string | undefined;
  const data: string[] = [];
  const headers = new Headers();
  let url: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '-s') continue;
    else if (a === '-X') method = args[++i];
    else if (a === '-d') data.push(args[++i]);
    else if (a === '-H') {
      const [name, ...value] = args[++i].split(':');
      headers.set(name.trim(), value.join(':').trim());
    } else if (a.startsWith('-')) throw new Error(`curl option ${a} of the README is not understood by this test`);
    else url = a;
  }
  assert.ok(url, `curl without a URL: ${args.join(' ')}`);
  const target = new URL(/^https?:\/\//.test(url) ? url : `http://${url}`);
  assert.equal(target.host, README_ORIGIN, `the README's commands talk to the default ${README_ORIGIN}`);
  target.host = `127.0.0.1:${w.port}`;
  // curl -d: the fields joined with &, sent as a form, POST unless told.
  if (data.length) headers.set('content-type', 'application/x-www-form-urlencoded');
  const res = await fetch(target, { method: method ?? (data.length ? 'POST' : 'GET'), headers, body: data.length ? data.join('&') : undefined });
  return { status: res.status, headers: res.headers, body: await res.text() };
}

/**
 * Runs commands as the README gives them, in order: `npm install` (already
 * done: node_modules is there), `npm test` (running now), `[VAR=value] npm start` (through the shell;
 * a service already running is stopped first, as with Ctrl-C), `VAR='value'`,
 * `TOKEN=$(curl … | jq -r .access_token)` and `curl …`. Anything else fails.
 */
async function runReadme(commands: string[], w: Workspace, state: { service?: Child; vars: Record<string, string>; responses: CurlResult[] }) {
  for (const command of commands) {
    let m: RegExpMatchArray | null;
    if (command === 'npm install') {
      assert.ok(await exists(path.join(REPO, 'node_modules', '.bin', 'tsx')), 'node_modules is installed');
    } else if (command === 'npm test') {
      // The test suite, which this test is part of.
    } else if (/^(?:\w+=(?:'[^']*'|"[^"]*"|\S+)\s+)*npm start$/.test(command)) {
      if (state.service) {
        process.kill(-state.service.pid, 'SIGINT');
        await exitOf(state.service);
      }
      state.service = shell(command, w.env);
      await waitForOutput(state.service, LISTENING);
    } else if ((m = /^(\w+)=\$\((curl .*) \| jq -r \.(\w+)\)$/.exec(command))) {
      const res = await curl(shellWords(m[2], state.vars).slice(1), w);
      let value: string;
      try {
        const field = (JSON.parse(res.body) as Record<string, unknown>)[m[3]];
        // jq -r prints a missing or null field as "null".
        value = field === undefined || field === null ? 'null' : String(field);
      } catch {
        value = ''; // jq prints nothing for a body that is not JSON
      }
      state.vars[m[1]] = value;
      state.responses.push(res);
    } else if ((m = /^(\w+)=('[^']*'|"[^"]*"|[^\s$'"]+)$/.exec(command))) {
      state.vars[m[1]] = shellWords(m[2], state.vars)[0] ?? '';
    } else if (command.startsWith('curl ')) {
      state.responses.push(await curl(shellWords(command, state.vars).slice(1), w));
    } else {
      throw new Error(`a README command this test does not know how to run: ${command}`);
    }
  }
}

describe("the README's first two code blocks, run as written", () => {
  let w: Workspace;
  const state: { service?: Child; vars: Record<string, string>; responses: CurlResult[] } = { vars: {}, responses: [] };

  it('npm install && npm start, then a token for the password the first start printed, and the maps with it', async () => {
    const blocks = (await readmeBlocks()).slice(0, 2);
    assert.equal(blocks.length, 2);
    assert.deepEqual(commandsOf(blocks[0]), ['npm install', 'npm start', 'npm test'], 'the README opens with the two commands a newcomer needs');
    w = await workspace();
    await runReadme(commandsOf(blocks[0]), w, state);
    assert.ok(state.service, 'the first block starts the service');
    const printed = /created user admin with password (\S+) \(shown once/.exec(state.service.stdout())?.[1];
    assert.ok(printed, state.service.stdout());
    // The second block names the password by a placeholder for the one the first start printed.
    const placeholder = /^PASSWORD='([^']*)'$/m.exec(blocks[1])?.[1];
    assert.ok(placeholder, 'the second block sets PASSWORD');
    await runReadme(commandsOf(blocks[1].replace(`PASSWORD='${placeholder}'`, `PASSWORD='${printed}'`)), w, state);
    assert.equal(state.responses.length, 2, 'a token request, then an API call');
    const [login, maps] = state.responses;
    assert.equal(login.status, 200, `${login.body}\n${state.service.stdout()}`);
    assert.match(state.vars.TOKEN, /^eyJ[\w-]+\.[\w-]+\.[\w-]+$/);
    assert.equal(maps.status, 200, maps.body);
    assert.ok(Array.isArray(JSON.parse(maps.body)), maps.body);
    assert.doesNotMatch(state.service.stdout(), /is ignored/);
  });

  it('with a wrong password, TOKEN is null and the call is 401 invalid_token: "not a token (did the login fail?)"', async () => {
    assert.ok(state.service, 'the service of the previous test runs');
    const [, second] = await readmeBlocks();
    const wrong = { vars: {} as Record<string, string>, responses: [] as CurlResult[] };
    await runReadme(commandsOf(second.replace(/^PASSWORD='[^']*'$/m, "PASSWORD='not the password'")), w, wrong);
    assert.equal(wrong.responses[0].status, 400);
    assert.equal(wrong.vars.TOKEN, 'null');
    const call = wrong.responses[1];
    assert.equal(call.status, 401);
    assert.match(call.headers.get('www-authenticate') ?? '', /error="invalid_token", error_description="not a token \(did the login fail\?\)"/);
    assert.equal((JSON.parse(call.body) as { detail: string }).detail, 'invalid bearer token: not a token (did the login fail?)');
  });

  it('Bearer undefined, an empty Bearer and random text get the same answer; a real token still works', async () => {
    for (const authorization of ['Bearer undefined', 'Bearer ', 'Bearer null', `Bearer ${Buffer.from('random text').toString('base64')}`, 'bearer x.y']) {
      const res = await fetch(`${w.base}/api/v1/maps/`, { headers: { authorization } });
      assert.equal(res.status, 401, authorization);
      assert.match(((await res.json()) as { detail: string }).detail, /not a token \(did the login fail\?\)/, authorization);
    }
    const good = await fetch(`${w.base}/api/v1/maps/`, { headers: { authorization: `Bearer ${state.vars.TOKEN}` } });
    assert.equal(good.status, 200);
  });
});

describe('MTS_ADMIN_PASSWORD once admin exists', () => {
  it('is ignored, the log says so and names the command that resets the password, and that command works', async () => {
    const w = await workspace();
    const store = await openFileStore(w.data, { log: () => undefined });
    await new UserDirectory(store, () => new Date(), TEST_PASSWORD_COST).create({ username: 'admin', name: 'Administrator', scope: ['svc:admin'], password: 'the first password' });
    await store.close();

    const service = shell("MTS_ADMIN_PASSWORD='a later password' npm start", w.env);
    await waitForOutput(service, LISTENING);
    const line = /MTS_ADMIN_PASSWORD is ignored: .*admin exists already.*$/m.exec(service.stdout())?.[0];
    assert.ok(line, service.stdout());
    const reset = /run: (npm run accounts -- set-password admin)$/.exec(line)?.[1];
    assert.ok(reset, line);
    assert.equal((await tokenRequest(w, 'admin', 'a later password')).status, 400);
    assert.equal((await tokenRequest(w, 'admin', 'the first password')).status, 200);

    // "stop the service and run: …", as the log says; stopped with Ctrl-C (the shell's whole process group).
    process.kill(-service.pid, 'SIGINT');
    await exitOf(service);
    assert.equal(await exists(w.lock), false, 'the service has released the data folder');
    const cli = shell(reset, w.env, 'a later password\n');
    assert.equal(await exitOf(cli), 0, cli.stderr());
    const reopened = await openFileStore(w.data, { log: () => undefined });
    try {
      const admin = new UserDirectory(reopened, () => new Date()).find('admin')!;
      assert.equal(await verifyPassword('a later password', admin.passwordHash), true);
    } finally {
      await reopened.close();
    }
  });
});

describe('a first start on a port in use', () => {
  it('fails with the message, creates no user and prints no password; the next start creates admin and shows a password that works', async () => {
    const w = await workspace();
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(w.port, '127.0.0.1', resolve));
    const failed = npmStart(w.env);
    try {
      assert.notEqual(await exitOf(failed), 0);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
    assert.match(failed.stderr(), new RegExp(`cannot listen on 127\\.0\\.0\\.1:${w.port} .*EADDRINUSE`));
    assert.doesNotMatch(failed.stdout() + failed.stderr(), /created user|password/i);
    assert.equal(await exists(w.usersFile), false, 'no users file');
    assert.equal(await exists(w.lock), false, 'the data folder is released');

    const started = npmStart(w.env);
    await waitForOutput(started, LISTENING);
    const password = /created user admin with password (\S+) \(shown once/.exec(started.stdout())?.[1];
    assert.ok(password, started.stdout());
    assert.equal((await tokenRequest(w, 'admin', password)).status, 200);
  });
});

describe('stopping `npm start`', () => {
  /** `npm start` on a workspace, listening; the service's pid from the data folder's lock, and its parent's. */
  async function started() {
    const w = await workspace();
    const npm = npmStart({ ...w.env, MTS_ADMIN_PASSWORD: 'stop test password' });
    await waitForOutput(npm, LISTENING);
    const servicePid = Number((await readFile(w.lock, 'utf8')).trim());
    const parent = await parentOf(servicePid);
    assert.equal(await portIsFree(w.port), false);
    return { w, npm, servicePid, parent };
  }

  /** After the stop: the service ended, npm too, the port free, the lock gone; the service was npm's own child. */
  async function assertStopped({ w, npm, servicePid, parent }: Awaited<ReturnType<typeof started>>, signal: string, npmExits: Array<number | string>) {
    assert.ok(npmExits.includes(await exitOf(npm)), npm.stderr());
    assert.match(npm.stdout(), new RegExp(`${signal}: finishing the requests in flight, then stopping`));
    assert.equal(alive(servicePid), false, 'the service has ended');
    assert.equal(await portIsFree(w.port), true, 'the port is free');
    assert.equal(await exists(w.lock), false, 'the lock is gone: the stop released the data folder');
    assert.equal(parent, npm.pid, "the service is npm's child, with no shell or tsx in between");
  }

  for (const target of ['npm', 'the service'] as const) {
    it(`SIGTERM to ${target}: the service stops, npm exits 0, the port is free, the lock is gone`, async () => {
      const run = await started();
      process.kill(target === 'npm' ? run.npm.pid : run.servicePid, 'SIGTERM');
      await assertStopped(run, 'SIGTERM', [0]);
    });
  }

  it('Ctrl-C reaches the service twice (from the terminal, and passed on by npm): one stop, the request in flight answered', async () => {
    const run = await started();
    // A token request whose body is half sent: the stop waits for it.
    const body = new URLSearchParams({ grant_type: 'password', username: 'admin', password: 'stop test password' }).toString();
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: run.w.port, method: 'POST', path: '/api/v1/auth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) } }, (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      });
      req.on('error', reject);
      req.write(body.slice(0, 10));
      void waitForOutput(run.npm, /SIGINT: finishing the requests in flight/).then(() => {
        // The second SIGINT, as npm's forward can arrive after the terminal's: within the same stop.
        process.kill(run.servicePid, 'SIGINT');
        setTimeout(() => req.end(body.slice(10)), 100);
      }, reject);
    });
    await new Promise((resolve) => setTimeout(resolve, 200)); // the first half has arrived
    process.kill(-run.npm.pid, 'SIGINT'); // Ctrl-C: the terminal signals the whole foreground process group
    const { status, text } = await answer;
    assert.equal(status, 200, text);
    // npm given Ctrl-C itself ends by SIGINT once its script has, as a shell expects.
    await assertStopped(run, 'SIGINT', [0, 'SIGINT']);
  });
});
