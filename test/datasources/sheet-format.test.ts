// The topology sheet format (docs/spreadsheets.md): records, coordinates from
// a Nodes tab or from source_*/destination_* cells, repeated headers, header
// case, defaults for id and name, and rows that cannot be used, reported with
// sheet and row number. Through createDatasources() on a temp folder.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { endpoint, query, registryFor, rejectsWith, tempDir, writeCsv, writeXlsx } from './helpers.ts';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(() => cleanup());

const nodesTab = {
  name: 'Nodes',
  rows: [
    ['Name', 'Latitude', 'Longitude', 'Site', 'Role'],
    ['chic-cr5', 41.8781, -87.6298, 'CHIC', 'core'],
    ['chic-cr6', 41.8781, -87.6298, 'CHIC', 'core'],
    ['newy-cr5', 40.7128, -74.006, 'NEWY', 'core'],
  ],
};

describe('records from a workbook with a Nodes tab', () => {
  it('joins endpoints by name, keeps metadata as text and orders the record fields', async () => {
    await writeXlsx(dir, 'net.xlsx', [
      { name: 'Circuits', rows: [['ID', 'Name', 'Source', 'Destination', 'Capacity', 'Region'], ['c1', 'chic-newy', 'chic-cr5', 'newy-cr5', 100, 'east']] },
      nodesTab,
    ]);
    const { records, problems } = await registryFor(dir).run(query(endpoint('net', 'Circuits')));
    assert.deepEqual(problems, []);
    assert.deepEqual(records, [{
      id: 'c1', name: 'chic-newy', source: 'chic-cr5', destination: 'newy-cr5', capacity: '100', region: 'east',
      endpoints: [
        { name: 'chic-cr5', latitude: 41.8781, longitude: -87.6298, site: 'CHIC', role: 'core' },
        { name: 'newy-cr5', latitude: 40.7128, longitude: -74.006, site: 'NEWY', role: 'core' },
      ],
    }]);
    assert.deepEqual(Object.keys(records[0]), ['id', 'name', 'source', 'destination', 'capacity', 'region', 'endpoints']);
  });

  it('gives id "row-<n>" and name "<source>--<destination>" when the cells are absent or empty', async () => {
    await writeXlsx(dir, 'net.xlsx', [
      { name: 'Links', rows: [['source', 'destination', 'id'], ['chic-cr5', 'newy-cr5', null], [], ['chic-cr6', 'newy-cr5', 'x9']] },
      nodesTab,
    ]);
    const { records } = await registryFor(dir).run(query(endpoint('net', 'Links')));
    assert.deepEqual(records.map((r) => [r.id, r.name]), [['row-2', 'chic-cr5--newy-cr5'], ['x9', 'chic-cr6--newy-cr5']]);
  });

  it('reports unusable rows with sheet and row number and keeps the rest', async () => {
    await writeXlsx(dir, 'net.xlsx', [
      { name: 'Circuits', rows: [
        ['source', 'destination', 'note'],
        ['chic-cr5', 'newy-cr5', 'ok'],
        [null, 'newy-cr5', 'no source'],
        ['chic-cr5', null, 'no destination'],
        ['chic-cr6', 'atla-cr1', 'atla is not in Nodes'],
      ] },
      { name: 'Nodes', rows: [...nodesTab.rows, ['bad-node', 'north', 3], ['half-node', 10, null], ['chic-cr5', 1, 1]] },
    ]);
    const result = await registryFor(dir).run(query(endpoint('net', 'Circuits')));
    assert.deepEqual(result.records.map((r) => r.note), ['ok', 'atla is not in Nodes']);
    assert.equal(result.records[1].endpoints[1].latitude, undefined);
    const where = result.problems.map((p) => `${p.sheet}:${p.row}`);
    assert.deepEqual(where, ['Nodes:5', 'Nodes:6', 'Nodes:7', 'Circuits:3', 'Circuits:4', 'Circuits:5']);
    assert.match(result.problems[0].message, /latitude "north" is not a number/);
    assert.match(result.problems[1].message, /latitude without a longitude/);
    assert.match(result.problems[2].message, /already listed at row 2/);
    assert.match(result.problems[3].message, /missing source; row skipped/);
    assert.match(result.problems[4].message, /missing destination; row skipped/);
    assert.match(result.problems[5].message, /"atla-cr1" has no coordinates.*kept/);
    const listed = (await registryFor(dir).list())[endpoint('net', 'Circuits')];
    assert.deepEqual(listed.problems, result.problems);
    assert.equal(listed.rowCount, 4);
    assert.equal(listed.recordCount, 2);
  });
});

describe('inline coordinates (source_* / destination_* columns)', () => {
  const header = ['source', 'destination', 'SOURCE_Latitude', 'source_longitude', 'destination_latitude', 'destination_longitude', 'source_pop', 'capacity'];

  it('makes every source_*/destination_* column a field of that endpoint, in xlsx and csv alike', async () => {
    const rows = [header, ['a', 'b', 1.5, 2.5, '-3', '4', 'AMS', 10]];
    await writeXlsx(dir, 'inline.xlsx', [{ name: 'Sheet1', rows }]);
    await writeCsv(dir, 'inline-csv.csv', rows);
    const registry = registryFor(dir);
    const expected = [{
      id: 'row-2', name: 'a--b', source: 'a', destination: 'b', capacity: '10',
      endpoints: [{ name: 'a', latitude: 1.5, longitude: 2.5, pop: 'AMS' }, { name: 'b', latitude: -3, longitude: 4 }],
    }];
    assert.deepEqual((await registry.run(query(endpoint('inline', 'Sheet1')))).records, expected);
    assert.deepEqual((await registry.run(query(endpoint('inline-csv', 'inline-csv')))).records, expected);
  });

  it('lets filled row cells win over the Nodes tab and falls back to it when empty', async () => {
    await writeXlsx(dir, 'mix.xlsx', [
      { name: 'Circuits', rows: [
        ['source', 'destination', 'source_latitude', 'source_longitude', 'source_site'],
        ['chic-cr5', 'newy-cr5', 10, 20, 'moved'],
        ['chic-cr6', 'newy-cr5', null, null, null],
      ] },
      nodesTab,
    ]);
    const { records } = await registryFor(dir).run(query(endpoint('mix', 'Circuits')));
    assert.deepEqual(records[0].endpoints[0], { name: 'chic-cr5', latitude: 10, longitude: 20, site: 'moved', role: 'core' });
    assert.deepEqual(records[1].endpoints[0], { name: 'chic-cr6', latitude: 41.8781, longitude: -87.6298, site: 'CHIC', role: 'core' });
  });

  const bad: [string, string, string, RegExp][] = [
    ['text latitude', 'abc', '1', /source "a": latitude "abc" is not a number/],
    ['latitude out of range', '91', '1', /latitude 91 is outside -90..90/],
    ['longitude out of range', '1', '-180.5', /longitude -180.5 is outside -180..180/],
    ['hex number', '0x10', '1', /not a number/],
    ['Infinity', 'Infinity', '1', /not a number/],
    ['latitude alone', '1', '', /latitude without a longitude/],
  ];
  for (const [label, lat, lng, message] of bad) {
    it(`skips and reports a row with a bad coordinate: ${label}`, async () => {
      await writeCsv(dir, 'c.csv', [
        ['source', 'destination', 'source_latitude', 'source_longitude', 'destination_latitude', 'destination_longitude'],
        ['a', 'b', lat, lng, '0', '0'],
        ['c', 'd', '1', '2', '3', '4'],
      ]);
      const result = await registryFor(dir).run(query(endpoint('c', 'c')));
      assert.deepEqual(result.records.map((r) => r.source), ['c']);
      assert.equal(result.problems.length, 1);
      assert.deepEqual([result.problems[0].sheet, result.problems[0].row], ['c', 2]);
      assert.match(result.problems[0].message, message);
    });
  }

  it('reads a decimal comma in a ;-separated CSV with a BOM', async () => {
    const { writeFile } = await import('node:fs/promises');
    await writeFile(`${dir}/eu.csv`, '\uFEFFsource;destination;source_latitude;source_longitude\r\nams;fra;52,37;4,89\r\n');
    const { records } = await registryFor(dir).run(query(endpoint('eu', 'eu')));
    assert.deepEqual(records[0].endpoints[0], { name: 'ams', latitude: 52.37, longitude: 4.89 });
  });
});

describe('headers', () => {
  it('match without regard to case or spaces, and repeated headers make arrays of the filled cells', async () => {
    const rows = [
      [' SOURCE ', 'Destination', 'Tag', 'tag', 'TAG', 'Source_Tag', 'source_tag'],
      ['a', 'b', 'x', null, 'z', 's1', 's2'],
      ['c', 'd', null, null, null, null, null],
    ];
    await writeXlsx(dir, 'h.xlsx', [{ name: 'T', rows }]);
    await writeCsv(dir, 'hc.csv', rows);
    const registry = registryFor(dir);
    for (const ep of [endpoint('h', 'T'), endpoint('hc', 'hc')]) {
      const { records } = await registry.run(query(ep));
      assert.deepEqual(records.map((r) => [r.tag, r.endpoints[0].tag]), [[['x', 'z'], ['s1', 's2']], [[], []]]);
    }
  });

  it('uses the first of repeated source/id columns and says so', async () => {
    await writeCsv(dir, 'r.csv', [['source', 'destination', 'source', 'id', 'id'], ['a', 'b', 'z', 'i1', 'i2']]);
    const result = await registryFor(dir).run(query(endpoint('r', 'r')));
    assert.deepEqual([result.records[0].source, result.records[0].id], ['a', 'i1']);
    assert.deepEqual(result.problems.map((p) => p.row), [1, 1]);
    assert.match(result.problems[0].message, /repeats "source"/);
  });

  it('lists only edge sheets: the Nodes tab and tabs without source/destination are not entries', async () => {
    await writeXlsx(dir, 'book.xlsx', [
      { name: 'Readme', rows: [['This workbook holds our circuits']] },
      { name: 'Circuits', rows: [['source', 'destination'], ['chic-cr5', 'newy-cr5']] },
      { name: 'Half', rows: [['Source', 'capacity'], ['a', '1']] },
      nodesTab,
    ]);
    const list = await registryFor(dir).list();
    assert.deepEqual(Object.keys(list), [endpoint('book', 'Circuits'), endpoint('book', 'Half')]);
    const circuits = list[endpoint('book', 'Circuits')];
    assert.deepEqual(circuits.context, { sheet_id: 'book', sheet_name: 'Circuits' });
    assert.equal(circuits.available, true);
    assert.deepEqual(circuits.columns, ['id', 'name', 'source', 'destination', 'endpoints.name',
      'endpoints.latitude', 'endpoints.longitude', 'endpoints.site', 'endpoints.role']);
    assert.equal(typeof circuits.name, 'string');
    assert.equal(typeof circuits.description, 'string');
    assert.ok(!Number.isNaN(Date.parse(circuits.lastModified as string)));
    const half = list[endpoint('book', 'Half')];
    assert.equal(half.available, false);
    assert.match(half.error as string, /no destination column/);
    const err = await rejectsWith(registryFor(dir).run(query(endpoint('book', 'Half'))), 'validation_failed');
    assert.match(err.message, /no destination column/);
    const nodes = await rejectsWith(registryFor(dir).run(query(endpoint('book', 'Nodes'))), 'validation_failed');
    assert.match(nodes.message, /no edge sheet "Nodes"; its edge sheets: "Circuits", "Half"/);
  });
});

describe('csv delimiters', () => {
  // The delimiter is the one of , ; and tab that the header line uses most; blank lines before it do not count.
  for (const [label, text] of [
    ['comma', 'source,destination,capacity\na,b,"1,5"\n'],
    ['semicolon (with a decimal comma)', 'source;destination;capacity\na;b;1,5\n'],
    ['tab', 'source\tdestination\tcapacity\na\tb\t1,5\n'],
    ['semicolon after blank lines', '\n  \r\nsource;destination;capacity\na;b;1,5\n'],
    ['tab after a BOM and a blank line', '\ufeff\r\nsource\tdestination\tcapacity\r\na\tb\t1,5\r\n'],
  ] as const) {
    it(`${label}`, async () => {
      const { writeFile } = await import('node:fs/promises');
      await writeFile(`${dir}/d.csv`, text);
      const { records, problems } = await registryFor(dir).run(query(endpoint('d', 'd')));
      assert.deepEqual(records.map((r) => [r.source, r.destination, r.capacity]), [['a', 'b', '1,5']]);
      assert.deepEqual(problems, []);
    });
  }
});

describe('a file of one tab', () => {
  // A Nodes tab is a lookup for the other tabs of its workbook; alone, it is an edge sheet like any other.
  it('nodes.csv holds circuits like any csv', async () => {
    await writeCsv(dir, 'nodes.csv', [['source', 'destination', 'capacity'], ['a', 'b', 1]]);
    const listed = (await registryFor(dir).list())[endpoint('nodes', 'nodes')];
    assert.equal(listed?.available, true);
    assert.deepEqual((await registryFor(dir).run(query(endpoint('nodes', 'nodes')))).records.map((r) => r.source), ['a']);
  });

  it('a workbook whose only tab is named Nodes holds circuits', async () => {
    await writeXlsx(dir, 'only.xlsx', [{ name: 'Nodes', rows: [['source', 'destination'], ['a', 'b']] }]);
    assert.deepEqual((await registryFor(dir).run(query(endpoint('only', 'Nodes')))).records.map((r) => r.destination), ['b']);
  });
});

describe('row numbers', () => {
  it('count empty lines and multi-line cells the way a spreadsheet program shows rows', async () => {
    const { writeFile } = await import('node:fs/promises');
    await writeFile(`${dir}/n.csv`, 'source,destination,note\n\na,b,"two\nlines"\n,c,x\n');
    const result = await registryFor(dir).run(query(endpoint('n', 'n')));
    assert.equal(result.records[0].note, 'two\nlines');
    assert.deepEqual(result.problems.map((p) => p.row), [4]);
  });
});

describe('white space', () => {
  it('is trimmed around csv cells; rows of only spaces and delimiters are empty rows', async () => {
    const { writeFile } = await import('node:fs/promises');
    await writeFile(`${dir}/w.csv`, ' Source , destination ,Tag, tag\n a ,\u00a0b\u00a0, x , \n , , , \n\t,\t c,y,z\n');
    const result = await registryFor(dir).run(query(endpoint('w', 'w')));
    assert.deepEqual(result.records.map((r) => [r.source, r.destination, r.tag]), [['a', 'b', ['x']]]);
    assert.deepEqual(result.problems.map((p) => [p.row, p.message]), [[4, 'missing source; row skipped']]);
    assert.equal((await registryFor(dir).list())[endpoint('w', 'w')].rowCount, 2);
  });
});

describe('cell values from xlsx', () => {
  it('become text: numbers, booleans, dates, formula results, rich text and hyperlinks', async () => {
    await writeXlsx(dir, 'v.xlsx', [{ name: 'T', rows: [
      ['source', 'destination', 'n', 'b', 'day', 'at', 'f', 'rich', 'link'],
      ['a', 'b', 0.25, true, new Date(Date.UTC(2024, 1, 29)), new Date(Date.UTC(2024, 1, 29, 13, 5)),
        { formula: '2*21', result: 42 } as never, { richText: [{ text: 'bold ' }, { text: 'move' }] } as never,
        { text: 'docs', hyperlink: 'https://example.org' } as never],
    ] }]);
    const [record] = (await registryFor(dir).run(query(endpoint('v', 'T')))).records;
    assert.deepEqual(
      [record.n, record.b, record.day, record.at, record.f, record.rich, record.link],
      ['0.25', 'true', '2024-02-29', '2024-02-29T13:05:00.000Z', '42', 'bold move', 'docs'],
    );
  });

  it('keep multi-byte characters whole across the reader\'s chunk boundaries', async () => {
    const names = Array.from({ length: 3000 }, (_, i) => `Zürich–Genève ✓ ${i} 東京`);
    await writeXlsx(dir, 'u.xlsx', [{ name: 'T', rows: [['source', 'destination'], ...names.map((n) => [n, `${n}→`])] }]);
    const { records } = await registryFor(dir).run(query(endpoint('u', 'T')));
    assert.deepEqual(records.map((r) => r.source), names);
  });
});
