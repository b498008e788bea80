import { readFile } from 'node:fs/promises';
import { Parser } from 'csv-parse';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
const d = readdirSync(tmpdir()).filter((n) => n.startsWith('prof-')).map((n) => path.join(tmpdir(), n)).pop()!;
const buf = await readFile(path.join(d, 'big.csv'));
const opts = { bom: true, delimiter: ',', relax_column_count: true, relax_quotes: true, skip_empty_lines: false };
const CH = Number(process.env.CH ?? 65536);
for (let k = 0; k < 2; k++) {
  const t = performance.now();
  const out: string[][] = []; const slow: string[] = [];
  const p = new Parser(opts) as any;
  for (let o = 0; o < buf.length; o += CH) { const t1 = performance.now(); const e = p.api.parse(buf.subarray(o, o + CH), false, (r: string[]) => out.push(r), () => {}); if (e) throw e; const dt = performance.now() - t1; if (dt > 30) slow.push(`${o}:${dt.toFixed(0)}`); await new Promise(setImmediate); }
  console.log(CH, (performance.now() - t).toFixed(0), slow.join(' '));
}
