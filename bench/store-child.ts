// A fresh process measuring one way of starting on a data folder (bench/store.ts,
// bench/store-history.ts start it through runChild). It imports only what its
// mode needs, so a baseline's RSS is not inflated by service code it does not
// run, keeps what it loaded alive until it has measured, and prints a Sample.
//   store <dir>                  openFileStore
//   store-app <dir>              openFileStore, then createApp on it (a restart: the folder was opened before)
//   latest-of-each <dir> <N>     baseline: readdir of maps/, then read + JSON.parse of maps/<id>/v<N>.json of
//                                each, one file after another with fs/promises
//   latest-of-each-sync <dir> <N>  the same loop with readdirSync and readFileSync (no thread-pool round trips)
//   one-file <file>              baseline: read + JSON.parse of one file
import { readdirSync, readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

const [mode, target, extra] = process.argv.slice(2);
const t0 = performance.now();
let items = 0;
let versions = 0;
let keep: unknown;
if (mode === 'store' || mode === 'store-app') {
  // Modules are loaded first: their loading is not the store's start-up (the process total is reported too).
  const { openFileStore } = await import('../store/file.ts');
  const app = mode === 'store-app'
    ? await Promise.all([import('../server.ts'), import('../config/settings.ts'), import('../log.ts')]) : undefined;
  const t = performance.now();
  const store = await openFileStore(target, { log: () => undefined });
  items = store.heads('maps').length;
  versions = store.heads('maps').reduce((n, [key]) => n + store.versions('maps', key).length, 0);
  keep = store;
  if (app) {
    const [{ createApp }, { parseSettings }, { createMemoryLogger }] = app;
    keep = [store, await createApp({ settings: parseSettings({ data: { dir: target } }, {}, target), store, log: createMemoryLogger() })];
  }
  report(performance.now() - t, items, keep);
  await store.close(); // releases the folder for the next child
  process.exit(0); // the service's timers (token keys, throttles) would keep the process alive
} else if (mode === 'latest-of-each') {
  const loaded: unknown[] = [];
  const maps = path.join(target, 'maps');
  for (const id of await readdir(maps)) {
    loaded.push(JSON.parse(await readFile(path.join(maps, id, `v${extra}.json`), 'utf8')));
  }
  report(performance.now() - t0, loaded.length, loaded);
} else if (mode === 'latest-of-each-sync') {
  const loaded: unknown[] = [];
  const maps = path.join(target, 'maps');
  for (const id of readdirSync(maps)) loaded.push(JSON.parse(readFileSync(path.join(maps, id, `v${extra}.json`), 'utf8')));
  report(performance.now() - t0, loaded.length, loaded);
} else if (mode === 'one-file') {
  const loaded = JSON.parse(await readFile(target, 'utf8'));
  report(performance.now() - t0, 1, loaded);
} else {
  throw new Error(`unknown mode ${mode}`);
}

function report(ms: number, count: number, _keep: unknown) {
  process.stdout.write(JSON.stringify({
    ms, sinceStartMs: performance.now(), rssMB: (process.resourceUsage().maxRSS * 1024) / 2 ** 20, items: count, versions,
  }));
}
