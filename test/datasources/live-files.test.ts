// Files added, changed and removed while the service runs are seen by the
// next list() and run() without a restart; an unchanged file is served from
// the cache (the very same record objects), a changed one is parsed again.
import assert from 'node:assert/strict';
import { mkdir, rename, rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { endpoint, query, registryFor, rejectsWith, tempDir, writeCsv, writeXlsx, xlsxBuffer } from './helpers.ts';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(() => cleanup());

const circuits = (n: number) => [['source', 'destination', 'capacity'], ...Array.from({ length: n }, (_, i) => [`a${i}`, `b${i}`, i])];

describe('files that change while the service runs', () => {
  it('a csv added, changed and removed shows in list() and run()', async () => {
    const registry = registryFor(dir);
    const ep = endpoint('live', 'live');
    assert.deepEqual(await registry.list(), {});
    assert.match((await rejectsWith(registry.run(query(ep)), 'datasource_unavailable')).message, /"live" does not exist/);

    await writeCsv(dir, 'live.csv', circuits(3));
    assert.equal((await registry.list())[ep]?.rowCount, 3);
    assert.equal((await registry.run(query(ep))).records.length, 3);

    await writeCsv(dir, 'live.csv', circuits(5));
    assert.equal((await registry.list())[ep]?.rowCount, 5);
    assert.equal((await registry.run(query(ep))).records.length, 5);

    await rm(path.join(dir, 'live.csv'));
    assert.deepEqual(Object.keys(await registry.list()), []);
    await rejectsWith(registry.run(query(ep)), 'datasource_unavailable');
  });

  it('a workbook replaced by rename (as editors save) shows its new tabs', async () => {
    const registry = registryFor(dir);
    await writeXlsx(dir, 'book.xlsx', [{ name: 'Old', rows: circuits(2) }]);
    assert.deepEqual(Object.keys(await registry.list()), [endpoint('book', 'Old')]);
    await writeFile(path.join(dir, 'book.tmp'), await xlsxBuffer([{ name: 'New', rows: circuits(4) }]));
    await rename(path.join(dir, 'book.tmp'), path.join(dir, 'book.xlsx'));
    assert.deepEqual(Object.keys(await registry.list()), [endpoint('book', 'New')]);
    assert.equal((await registry.run(query(endpoint('book', 'New')))).records.length, 4);
    // The workbook is there; its tab is not: 422 naming the tabs it has.
    assert.match((await rejectsWith(registry.run(query(endpoint('book', 'Old'))), 'validation_failed')).message, /its edge sheets: "New"/);
  });

  it('an unchanged file is served from the cache; a touched one is read again', async () => {
    const registry = registryFor(dir);
    const file = await writeCsv(dir, 'c.csv', circuits(3));
    const ep = endpoint('c', 'c');
    const first = await registry.run(query(ep));
    const second = await registry.run(query(ep));
    assert.equal(second.records[0], first.records[0], 'same objects: no second parse');
    assert.notEqual(second.records, first.records, 'a new result array each time');
    await utimes(file, new Date(), new Date(Date.now() + 5000));
    const third = await registry.run(query(ep));
    assert.notEqual(third.records[0], first.records[0]);
    assert.deepEqual(third.records, first.records);
  });

  it('a file that turns corrupt is unavailable, and available again once fixed', async () => {
    const registry = registryFor(dir);
    await writeXlsx(dir, 'w.xlsx', [{ name: 'Circuits', rows: circuits(2) }]);
    const ep = endpoint('w', 'Circuits');
    assert.equal((await registry.run(query(ep))).records.length, 2);
    await writeFile(path.join(dir, 'w.xlsx'), 'not a zip at all');
    await rejectsWith(registry.run(query(ep)), 'validation_failed');
    assert.equal((await registry.list())[endpoint('w', '')]?.available, false);
    await writeXlsx(dir, 'w.xlsx', [{ name: 'Circuits', rows: circuits(3) }]);
    assert.equal((await registry.run(query(ep))).records.length, 3);
  });

  it('a spreadsheet folder that does not exist yet lists nothing, then works once created', async () => {
    const later = path.join(dir, 'later');
    const registry = registryFor(later);
    assert.deepEqual(await registry.list(), {});
    await mkdir(later);
    await writeCsv(later, 'x.csv', circuits(1));
    assert.deepEqual(Object.keys(await registry.list()), [endpoint('x', 'x')]);
  });

  it('ignores lock files, dot files, folders and other extensions; an xlsx wins over a csv of the same name', async () => {
    await writeXlsx(dir, 'same.xlsx', [{ name: 'same', rows: circuits(2) }]);
    await writeCsv(dir, 'same.csv', circuits(7));
    await writeCsv(dir, '~$same.csv', circuits(1));
    await writeCsv(dir, '.hidden.csv', circuits(1));
    await writeCsv(dir, 'notes.txt', circuits(1));
    await mkdir(path.join(dir, 'folder.csv'));
    await writeCsv(dir, 'UPPER.CSV', circuits(1));
    const list = await registryFor(dir).list();
    assert.deepEqual(Object.keys(list), [endpoint('UPPER', 'UPPER'), endpoint('same', 'same')]);
    assert.equal(list[endpoint('same', 'same')].file, 'same.xlsx');
  });

  it('a filtered query and a later full one share the same record objects', async () => {
    const registry = registryFor(dir);
    await writeCsv(dir, 's.csv', circuits(10));
    const some = await registry.run(query(endpoint('s', 's'), [{ field: 'capacity', operator: 'equal', value: ['3', '7'] }]));
    const all = await registry.run(query(endpoint('s', 's')));
    assert.deepEqual(some.records.map((r) => r.source), ['a3', 'a7']);
    assert.equal(all.records[3], some.records[0]);
    assert.equal(all.records[7], some.records[1]);
    assert.deepEqual(all.records.map((r) => r.id), Array.from({ length: 10 }, (_, i) => `row-${i + 2}`));
  });

  it('parses a file once even when many queries arrive together', async () => {
    const registry = registryFor(dir);
    await writeCsv(dir, 'p.csv', circuits(50));
    const results = await Promise.all(Array.from({ length: 20 }, () => registry.run(query(endpoint('p', 'p')))));
    for (const r of results) assert.equal(r.records[0], results[0].records[0]);
  });
});
