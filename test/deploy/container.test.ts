// The deployment files, checked as far as a machine without a container
// engine allows. The Dockerfile: its rules (non-root, a data volume, a
// health check, production dependencies only, exec-form start), then its
// install and start steps run on a fresh copy of the tree: the dependency
// stage's RUN (npm ci, from npm's cache: tests reach no network), the final
// stage's RUN with /data moved into a temp folder, CMD with the image's ENV,
// and HEALTHCHECK's command against it. compose.yaml through `docker-compose
// config` and the systemd unit through `systemd-analyze verify`, where
// Debian's packages are installed.
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { FAST } from '../helpers/components.ts';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '..', '..');

interface Stage { from: string; env: Record<string, string>; runs: string[]; copies: string[]; user?: string; volume?: string; cmd?: string[]; healthcheck?: string[] }

/** The Dockerfile's stages: each instruction this project's Dockerfile uses, continuation lines joined. */
function stagesOf(text: string): Stage[] {
  const stages: Stage[] = [];
  const lines = text.replace(/\\\n\s*/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  for (const line of lines) {
    const [, op, rest] = /^(\w+)\s+(.*)$/.exec(line)!;
    const stage = stages.at(-1)!;
    switch (op.toUpperCase()) {
      case 'FROM': stages.push({ from: rest, env: {}, runs: [], copies: [] }); break;
      case 'ENV': for (const [, k, v] of rest.matchAll(/(\w+)=(\S+)/g)) stage.env[k] = v; break;
      case 'RUN': stage.runs.push(rest); break;
      case 'COPY': stage.copies.push(rest); break;
      case 'USER': stage.user = rest; break;
      case 'VOLUME': stage.volume = rest; break;
      case 'CMD': stage.cmd = JSON.parse(rest); break;
      case 'HEALTHCHECK': stage.healthcheck = JSON.parse(/CMD (\[.*\])$/.exec(rest)![1]); break;
      case 'WORKDIR': case 'EXPOSE': break;
      default: throw new Error(`a Dockerfile instruction this test does not know: ${op}`);
    }
  }
  return stages;
}

const has = async (command: string) => run('sh', ['-c', `command -v ${command}`]).then(() => true, () => false);
const [hasCompose, hasSystemd] = await Promise.all([has('docker-compose'), has('systemd-analyze')]);

describe('Dockerfile', () => {
  let stages: Stage[];
  before(async () => {
    stages = stagesOf(await readFile(path.join(ROOT, 'Dockerfile'), 'utf8'));
  });

  it('installs production dependencies only, and runs as a user, with /data a volume and a health check', () => {
    const [deps, final] = stages;
    assert.equal(stages.length, 2);
    assert.match(deps.runs.join('\n'), /^npm ci --omit=dev\b/m);
    assert.ok(final.user && final.user !== 'root' && final.user !== '0', `USER ${final.user}`);
    assert.equal(final.volume, '/data');
    assert.equal(final.env.MTS_DATA_DIR, '/data');
    assert.deepEqual(final.cmd, ['node', '--import', 'tsx', 'server.ts'], 'exec form: docker stop\'s SIGTERM reaches the service');
    assert.match(final.healthcheck?.join(' ') ?? '', /\/healthz/);
  });

  it('leaves private data and the repository\'s history out of the image', async () => {
    const ignored = (await readFile(path.join(ROOT, '.dockerignore'), 'utf8')).split('\n');
    for (const entry of ['.git', 'node_modules', 'data/private', 'settings.yml']) assert.ok(ignored.includes(entry), entry);
  });

  describe('its install and start steps, run on a fresh copy of the tree', { skip: FAST && 'a whole npm ci: skipped under npm run test:fast' }, () => {
    let dir: string;
    let service: ChildProcess | undefined;
    let skip: string | false = false;
    before(async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'mts-docker-'));
      const app = path.join(dir, 'app');
      // COPY . . of the files git knows (committed or new), less what .dockerignore names.
      const ignored = (await readFile(path.join(ROOT, '.dockerignore'), 'utf8')).split('\n').filter((l) => l && !l.startsWith('#'));
      const { stdout } = await run('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: ROOT, maxBuffer: 64 << 20 });
      const files = stdout.split('\0').filter((f) => f && !ignored.some((p) => f === p || f.startsWith(`${p}/`) || (p.endsWith('*') && f.startsWith(p.slice(0, -1)))));
      for (const f of files) await cp(path.join(ROOT, f), path.join(app, f)).catch((e) => { if (e.code !== 'ENOENT') throw e; });
      // The dependency stage: npm from its cache only (npm_config_offline), as this test may not reach the registry.
      try {
        for (const step of stages[0].runs) await run('sh', ['-c', step], { cwd: app, env: { ...process.env, npm_config_offline: 'true' }, maxBuffer: 64 << 20 });
      } catch (e) {
        const out = `${(e as { stderr?: string }).stderr ?? e}`;
        if (!/ENOTCACHED/.test(out)) throw e;
        skip = 'npm\'s cache lacks a package of the lockfile (run npm ci once with the network)';
      }
    });
    after(async () => {
      service?.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    });

    it('installs, seeds the data folder, starts, answers its health check and the home page, and stops on SIGTERM', async (t) => {
      if (skip) return t.skip(skip);
      const app = path.join(dir, 'app');
      const data = path.join(dir, 'data');
      // The final stage's RUN, with /data a temp folder (and no chown unless the image's user exists here).
      const owner = await run('id', ['-u', 'node']).then(() => process.getuid?.() === 0, () => false);
      for (const step of stages[1].runs) {
        const here = step.replaceAll('/data', data);
        await run('sh', ['-c', owner ? here : here.replace(/ && chown -R \S+ \S+/, '')], { cwd: app });
      }
      const env = { ...process.env, ...stages[1].env, MTS_DATA_DIR: data, PORT: '0', HOST: '127.0.0.1' };
      const [command, ...args] = stages[1].cmd!;
      service = spawn(command, args, { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      service.stdout!.on('data', (b) => { out += b; });
      service.stderr!.on('data', (b) => { out += b; });
      const port = await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no start within 60 s:\n${out}`)), 60_000);
        service!.stdout!.on('data', () => {
          const m = /bound to 127\.0\.0\.1:(\d+)/.exec(out);
          if (m) { clearTimeout(timer); resolve(Number(m[1])); }
        });
        service!.once('exit', (code) => reject(new Error(`exited ${code}:\n${out}`)));
      });
      assert.match(out, /created user admin with password \S+ \(shown once/);
      const [hc, ...hcArgs] = stages[1].healthcheck!;
      await run(hc, hcArgs, { env: { ...env, PORT: String(port) } }); // throws on a non-zero exit
      const home = await fetch(`http://127.0.0.1:${port}/`);
      assert.equal(home.status, 200);
      assert.match(await home.text(), /<title>Map Topology Service<\/title>/);
      const exited = new Promise((resolve) => service!.once('exit', resolve));
      service.kill('SIGTERM');
      assert.equal(await exited, 0);
      service = undefined;
    });
  });
});

describe('compose.yaml', () => {
  it('runs the service with its data in a volume; PostgreSQL replicas and Prometheus are profiles', async () => {
    const compose = parseYaml(await readFile(path.join(ROOT, 'compose.yaml'), 'utf8'));
    assert.deepEqual(compose.services.mts.volumes, ['mts-data:/data']);
    assert.equal(compose.services.mts.profiles, undefined, 'the service itself runs with no profile');
    for (const name of ['postgres', 'replica-a', 'replica-b', 'proxy']) assert.deepEqual(compose.services[name].profiles, ['postgres'], name);
    assert.deepEqual(compose.services.prometheus.profiles, ['prometheus']);
  });

  it('is valid for docker-compose', { skip: !hasCompose && 'docker-compose not installed (apt-get install docker-compose)' }, async () => {
    await run('docker-compose', ['-f', path.join(ROOT, 'compose.yaml'), '--profile', 'postgres', '--profile', 'prometheus', 'config', '-q'], { cwd: ROOT });
  });
});

describe('deploy/map-topology.service', () => {
  it('passes systemd-analyze verify', { skip: !hasSystemd && 'systemd-analyze not installed' }, async () => {
    const { stderr } = await run('systemd-analyze', ['verify', path.join(ROOT, 'deploy', 'map-topology.service')]);
    assert.equal(stderr, '');
  });
});

describe('the allocator setting (docs/deployment.md: Memory)', () => {
  it('npm start, the Dockerfile and the systemd unit give the service the same GLIBC_TUNABLES, one tunable, and npm start keeps one already set', async () => {
    const start = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')).scripts.start as string;
    const fromStart = /^GLIBC_TUNABLES=\$\{GLIBC_TUNABLES:-([^}]+)\} exec node /.exec(start)?.[1];
    const fromImage = stagesOf(await readFile(path.join(ROOT, 'Dockerfile'), 'utf8'))[1].env.GLIBC_TUNABLES;
    const fromUnit = /^Environment=GLIBC_TUNABLES=(\S+)$/m.exec(await readFile(path.join(ROOT, 'deploy', 'map-topology.service'), 'utf8'))?.[1];
    assert.match(fromStart ?? '', /^glibc\.malloc\.mmap_threshold=\d+$/, 'one tunable: glibc cuts the variable at its first colon');
    assert.deepEqual([fromImage, fromUnit], [fromStart, fromStart]);
  });
});
