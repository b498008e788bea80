import { readFile } from 'node:fs/promises';
import v8 from 'node:v8';
import { parse } from 'csv-parse/sync';
import { Parser } from 'csv-parse';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
const d = readdirSync(tmpdir()).filter((n) => n.startsWith('prof-')).map((n) => path.join(tmpdir(), n)).pop()!;
const buf = await readFile(path.join(d, 'big.csv'));
const opts = { bom: true, delimiter: ',', relax_column_count: true, relax_quotes: true, skip_empty_lines: false };
for (let k = 0; k < 3; k++) {
  let t = performance.now();
  const recs = parse(buf, opts); const tSync = performance.now() - t;
  t = performance.now();
  const ser = v8.serialize(recs); const tSer = performance.now() - t; t = performance.now();
  const back = v8.deserialize(ser); const tDe = performance.now() - t;
  t = performance.now();
  const out: string[][] = []; let maxChunk = 0;
  const p = new Parser(opts) as any;
  const CH = 256 * 1024;
  for (let o = 0; o < buf.length; o += CH) { const t1 = performance.now(); const e = p.api.parse(buf.subarray(o, o + CH), false, (r: string[]) => out.push(r), () => {}); if (e) throw e; maxChunk = Math.max(maxChunk, performance.now() - t1); await new Promise(setImmediate); }
  const e = p.api.parse(undefined, true, (r: string[]) => out.push(r), () => {}); if (e) throw e;
  const tChunk = performance.now() - t;
  console.log({ tSync, tSer, tDe, bytes: ser.length, tChunk, maxChunk, same: JSON.stringify(out) === JSON.stringify(recs), n: back.length });
}
