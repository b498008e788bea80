// `npm run picture` (cli/demo-picture.ts) as a real process: it writes the
// demo map's PNG, as the public png/ route answers it, to the path given,
// and leaves the committed data/ folder exactly as it was.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { demoPicture, demoPictureCli } from '../../cli/demo-picture.ts';
import { DEMO_MAP_NAME } from '../../cli/seed-demo.ts';
import { makeDemoApp } from '../helpers/app.ts';
import { itAnswersItsCommandLine } from './command-line.ts';

const root = path.resolve(import.meta.dirname, '../..');
const data = path.join(root, 'data');

/** Every file under data/ with its size and modification time. */
async function snapshot(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return Promise.all(entries.filter((e) => e.isFile()).map(async (e) => {
    const full = path.join(e.parentPath, e.name);
    const s = await stat(full);
    return `${path.relative(dir, full)} ${s.size} ${s.mtimeMs}`;
  })).then((lines) => lines.sort());
}

describe('npm run picture', () => {
  it('writes the demo map as a PNG to the path given; data/ is only read', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'mts-picture-cli-'));
    try {
      const before = await snapshot(data);
      const out = path.join(dir, 'demo.png');
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'cli/demo-picture.ts', out], { cwd: root });
      const png = await readFile(out);
      assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      // The demo map has a viewport: a 1200 x 700 frame.
      assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [1200, 700]);
      assert.match(stdout, new RegExp(`wrote ${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: map \\w{7}, 1200 x 700 px, ${png.length} bytes`));
      assert.deepEqual(await snapshot(data), before);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('draws the demo map by its ID when another published map is listed first', async () => {
    const t = await makeDemoApp();
    try {
      const token = await t.token();
      const list = async () => (await (await t.request('/api/v1/public/maps/')).json()) as { mapId: string; name: string }[];
      const demo = (await list()).find((m) => m.name === DEMO_MAP_NAME)!.mapId;
      // Publish other maps until one comes before the demo in the public list (IDs are random).
      for (let i = 0; i < 20 && (await list())[0].mapId === demo; i++) {
        const created = await t.request('/api/v1/map/', { method: 'POST', token, json: { name: `Mine ${i}`, configuration: { layers: [] } } });
        const { mapId } = (await created.json()) as { mapId: string };
        assert.equal((await t.request(`/api/v1/map/id/${mapId}/publish/`, { method: 'POST', token })).status, 200);
      }
      assert.notEqual((await list())[0].mapId, demo);
      await t.store.close();
      assert.equal((await demoPicture(t.dir)).mapId, demo);
    } finally {
      await t.close();
    }
  });
});

describe('npm run picture: its command line', () => {
  itAnswersItsCommandLine(demoPictureCli, /^usage: npm run picture \[-- out\.png\]\n/);
});
