// serve() on a data folder that does not exist: a mistyped MTS_DATA_DIR must
// not quietly become a fresh install. The start says so loudly (on stderr),
// naming the folder, and creates it with sheets/; a start on a folder that
// exists says nothing of the kind.
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createMemoryLogger } from '../log.ts';
import { serve } from '../server.ts';

let tmp: string;
before(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'mts-new-folder-'));
  await writeFile(path.join(tmp, 'settings.yml'), '{}\n');
});
after(() => rm(tmp, { recursive: true, force: true }));

async function start(dataDir: string) {
  const log = createMemoryLogger();
  const env = { MTS_CONFIG: path.join(tmp, 'settings.yml'), MTS_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', MTS_ADMIN_PASSWORD: 'new folder test pass' };
  const { server, store } = await serve(env, { log, signals: false });
  await new Promise((resolve) => server.close(resolve));
  await store.close();
  return log.lines;
}

describe('serve() on a data folder that does not exist', () => {
  it('creates it with sheets/ and a loud line naming it; the next start is quiet', async () => {
    const typo = path.join(tmp, 'dta');
    const lines = await start(typo);
    const warning = lines.filter((l) => l.startsWith('WARNING: the data folder'));
    assert.equal(warning.length, 1, lines.join('\n'));
    assert.ok(warning[0].includes(`${typo} does not exist`), warning[0]);
    assert.match(warning[0], /MTS_DATA_DIR/);
    assert.ok((await stat(path.join(typo, 'sheets'))).isDirectory());
    const again = await start(typo);
    assert.deepEqual(again.filter((l) => l.includes('does not exist')), []);
  });
});
