import path from 'node:path';
import { readFileSync } from 'node:fs';
import { parseSettings } from '../config/settings.ts';
import { createDatasources } from '../datasources/index.ts';
const dir = '/tmp/stall-200k';
const reg = createDatasources(parseSettings({ datasources: { spreadsheet: { dir, maxRows: 300000, maxFileBytes: 100e6 } } }, {}, dir));
const q = (filters: any[]) => ({ endpoint: 'spreadsheet?sheet_id=bench-csv&sheet_name=bench-csv', filters, node_deduplication_field: null, node_group_criteria: null, node_group_layout: null });
let t = performance.now(); await reg.list(); console.log('list', performance.now() - t);
for (let k = 0; k < 2; k++) {
t = performance.now(); let r = await reg.run(q([{ field: 'region', operator: 'equal', value: ['europe'] }] as any)); console.log('filtered', r.records.length, performance.now() - t);
t = performance.now(); r = await reg.run(q([])); console.log('all', r.records.length, performance.now() - t);
}
const buf = readFileSync(path.join(dir, 'bench-csv.csv'));
t = performance.now(); const s = new TextDecoder('windows-1252').decode(buf); console.log('1252 decode', performance.now() - t);
t = performance.now(); Buffer.from(s); console.log('re-encode', performance.now() - t);
t = performance.now(); buf.indexOf(34); console.log('indexOf', performance.now() - t);
const bytes = new Uint8Array(buf.buffer, buf.byteOffset, buf.length);
t = performance.now(); let inQ = false, f = 0; for (let i = 0; i < bytes.length; i++) { const b = bytes[i]; if (b === 44) { if (!inQ) f++; } else if (b === 34) inQ = !inQ; else if (b === 10 && !inQ) f = 0; } console.log('quote loop', performance.now() - t, f);
t = performance.now(); let row = 0; for (let start = 0; start < bytes.length; start++) { let end = buf.indexOf(10, start); if (end < 0) end = bytes.length; row++; start = end; } console.log('line loop', performance.now() - t, row);
