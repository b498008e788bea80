// `npm run bench`: runs every benchmark module and prints each figure beside
// its same-run baseline as a ratio. One module can be picked by name:
// `npm run bench -- store`.
type Bench = { name: string; load: () => Promise<() => Promise<string[]>> };

const benches: Bench[] = [
  { name: 'store', load: async () => (await import('./store.ts')).benchStore },
  { name: 'http', load: async () => (await import('./http.ts')).benchHttp },
  { name: 'datasource', load: async () => (await import('./datasource.ts')).benchDatasource },
  { name: 'render', load: async () => (await import('./render.ts')).benchRender },
  { name: 'render-fresh', load: async () => (await import('./render-fresh.ts')).benchFresh },
  { name: 'output', load: async () => (await import('./output.ts')).benchOutput },
  { name: 'diff', load: async () => (await import('./diff.ts')).benchDiff },
  { name: 'diff-big', load: async () => (await import('./diff-big.ts')).benchDiffBig },
  { name: 'oidc', load: async () => (await import('./oidc.ts')).benchOidc },
  { name: 'sheets', load: async () => (await import('./sheets.ts')).benchSheets },
  { name: 'bounds', load: async () => (await import('./bounds.ts')).benchBounds },
  { name: 'bounds-rss', load: async () => (await import('./bounds-rss.ts')).benchBoundsRss },
  { name: 'postgres', load: async () => (await import('./postgres.ts')).benchPostgres },
  { name: 'log', load: async () => (await import('./log.ts')).benchLog },
  { name: 'home', load: async () => (await import('./home.ts')).benchHome },
  { name: 'traffic', load: async () => (await import('./traffic.ts')).benchTraffic },
];

const wanted = process.argv.slice(2);
const selected = wanted.length ? benches.filter((b) => wanted.includes(b.name)) : benches;
if (wanted.length && selected.length !== wanted.length) {
  console.error(`unknown benchmark; choose from: ${benches.map((b) => b.name).join(', ')}`);
  process.exit(2);
}

for (const bench of selected) {
  console.log(`## ${bench.name}`);
  const run = await bench.load();
  for (const line of await run()) console.log(line);
}
