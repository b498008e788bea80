// Regenerates the README's picture (docs/demo-map.png) from the current
// renderer: the demo map's PNG (the public map cli/seed-demo.ts names
// DEMO_MAP_NAME, drawn by its ID; other published maps are left alone) as `GET /api/v1/public/output/map/{id}/png/`
// answers it, requested from the real app (the same route, cache and
// rasterizer as the service) over a temp copy of the committed data/ folder,
// so data/ is only read. Writes the PNG to the path given, by default
// docs/demo-map.png (`--help` says so):
//   npm run picture [-- out.png]
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseSettings } from '../config/settings.ts';
import { createMemoryLogger } from '../log.ts';
import { createApp } from '../server.ts';
import { openFileStore } from '../store/file.ts';
import { commandLine, refuse } from './args.ts';
import { DEMO_MAP_NAME } from './seed-demo.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const DATA = path.join(ROOT, 'data');
const DEFAULT_OUT = path.join(ROOT, 'docs', 'demo-map.png');

/** The demo map's PNG, rendered by the app over a copy of `data` (users, keys and the lock of a local start are not copied). */
export async function demoPicture(data = DATA): Promise<{ mapId: string; png: Buffer }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mts-picture-'));
  try {
    await cp(data, dir, { recursive: true, filter: (src) => !/[\\/](private|\.lock)$/.test(src) });
    const settings = parseSettings({ data: { dir } }, {}, dir);
    const store = await openFileStore(dir);
    try {
      const app = await createApp({ settings, store, log: createMemoryLogger() });
      const named = new URLSearchParams({ name: DEMO_MAP_NAME });
      const maps = (await (await app.request(`/api/v1/public/maps/?${named}`)).json()) as { mapId: string }[];
      if (maps.length !== 1) {
        throw new Error(`${data} has ${maps.length || 'no'} published maps named ${JSON.stringify(DEMO_MAP_NAME)}, not one (cli/seed-demo.ts makes the demo)`);
      }
      const [{ mapId }] = maps;
      const res = await app.request(`/api/v1/public/output/map/${mapId}/png/`);
      if (res.status !== 200) throw new Error(`the PNG route answered ${res.status}: ${await res.text()}`);
      return { mapId, png: Buffer.from(await res.arrayBuffer()) };
    } finally {
      await store.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const USAGE = `usage: npm run picture [-- out.png]
  draws the demo map's public PNG over a temp copy of data/ (only read) into
  out.png, by default docs/demo-map.png`;

type PictureIO = { out: (line: string) => void; err: (line: string) => void };

/** The command line: `[out.png]` or `--help`; the exit code. */
export async function demoPictureCli(argv: readonly string[], io: PictureIO, data = DATA): Promise<number> {
  const line = commandLine(argv, { usage: USAGE, words: [0, 1] });
  if (!line.run) return refuse(line, io);
  const out = path.resolve(line.positionals[0] ?? DEFAULT_OUT);
  try {
    const { mapId, png } = await demoPicture(data);
    await writeFile(out, png);
    io.out(`wrote ${out}: map ${mapId}, ${png.readUInt32BE(16)} x ${png.readUInt32BE(20)} px, ${png.length} bytes`);
    return 0;
  } catch (e) {
    io.err(`demo picture: ${(e as Error).message}`);
    return 1;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exitCode = await demoPictureCli(process.argv.slice(2), { out: (l) => console.log(l), err: (l) => console.error(l) });
}
