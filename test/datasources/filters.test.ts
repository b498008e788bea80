// Dataset query filters (docs/api.md: Filters): each operator and their
// combinations over a generated fixture, written both as an xlsx workbook
// (with a Nodes tab) and as a CSV with inline coordinates. Expected results
// come from a plain reference filter over the generator's own rows, never
// from the implementation.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as v from 'valibot';
import type { DatasourceRegistry } from '../../datasources/types.ts';
import { QuerySchema } from '../../schema/dataset.ts';
import { type Cell, endpoint, query, registryFor, rejectsWith, tempDir, writeCsv, writeXlsx } from './helpers.ts';

type Ref = { id: string; endpoints: Record<string, string>[]; [field: string]: string | string[] | Record<string, string>[] };

const SITES = [
  ['CHIC', 'us', 41.8781, -87.6298], ['NEWY', 'us', 40.7128, -74.006], ['ATLA', 'us', 33.749, -84.388],
  ['AMST', 'eu', 52.3676, 4.9041], ['FRAN', 'eu', 50.1109, 8.6821], ['LOND', 'eu', 51.5072, -0.1276],
] as const;
const NODES = SITES.flatMap(([site, region, lat, lng]) =>
  [1, 2].map((n) => ({ name: `${site.toLowerCase()}-cr${n}`, site, region, latitude: lat, longitude: lng })));
const TAGS = [['lit', ''], ['leased', 'backup'], ['', ''], ['backup', 'lit']];
const WORDS = ['Primary path', 'BACKUP path', 'primary', '', 'Research link'];

/** The fixture as the generator knows it, and the same rows as sheet cells. */
function fixture() {
  const header = ['ID', 'Source', 'Destination', 'Capacity', 'Region', 'Tag', 'TAG', 'Description'];
  const rows: Cell[][] = [];
  const refs: Ref[] = [];
  for (let i = 0; i < 90; i++) {
    const a = NODES[i % NODES.length];
    const b = NODES[(i * 2 + 5) % NODES.length] === a ? NODES[(i + 1) % NODES.length] : NODES[(i * 2 + 5) % NODES.length];
    const region = a.region === b.region ? a.region : 'transatlantic';
    const capacity = [10, 100, 400][i % 3];
    const tags = TAGS[i % TAGS.length];
    const description = `${WORDS[i % WORDS.length]}${i % 7 === 0 && WORDS[i % WORDS.length] ? ` ${i}` : ''}`;
    rows.push([`c${i}`, a.name, b.name, capacity, region, tags[0] || null, tags[1] || null, description || null]);
    const end = (n: typeof a) => ({ name: n.name, site: n.site, region: n.region, latitude: String(n.latitude), longitude: String(n.longitude) });
    refs.push({
      id: `c${i}`, name: `${a.name}--${b.name}`, source: a.name, destination: b.name, capacity: String(capacity), region,
      tag: tags.filter(Boolean), description, endpoints: [end(a), end(b)],
    });
  }
  return { header, rows, refs };
}

/** The filter rules of docs/api.md (Filters), restated as plainly as possible. */
function reference(refs: Ref[], filters: { field: string; operator: string; value: string[] }[]): string[] {
  return refs.filter((ref) => filters.every((f) => {
    const field = f.field.toLowerCase();
    const values: string[] = field.startsWith('endpoints.')
      ? ref.endpoints.flatMap((e) => [e[field.slice(10)] ?? ''])
      : [ref[field]].flat() as string[];
    const like = f.operator.endsWith('like');
    const hit = values.some((value) => f.value.some((want) => (like ? value.toLowerCase().includes(want.toLowerCase()) : value === want)));
    return f.operator.startsWith('not_') ? !hit : hit;
  })).map((ref) => ref.id as string);
}

const CASES: [string, { field: string; operator: string; value: string[] }[]][] = [
  ['equal, one value', [{ field: 'region', operator: 'equal', value: ['eu'] }]],
  ['equal, values OR together', [{ field: 'region', operator: 'equal', value: ['eu', 'us'] }]],
  ['not_equal, one value', [{ field: 'region', operator: 'not_equal', value: ['eu'] }]],
  ['not_equal excludes any listed value', [{ field: 'region', operator: 'not_equal', value: ['eu', 'us'] }]],
  ['like is a case-insensitive substring', [{ field: 'description', operator: 'like', value: ['PATH'] }]],
  ['like, values OR together', [{ field: 'description', operator: 'like', value: ['primary', 'research'] }]],
  ['not_like', [{ field: 'description', operator: 'not_like', value: ['primary'] }]],
  ['equal on a number column compares text', [{ field: 'capacity', operator: 'equal', value: ['100'] }]],
  ['equal "" matches empty cells', [{ field: 'description', operator: 'equal', value: [''] }]],
  ['equal on a repeated header matches any item', [{ field: 'tag', operator: 'equal', value: ['backup'] }]],
  ['not_equal on a repeated header excludes any item', [{ field: 'tag', operator: 'not_equal', value: ['backup'] }]],
  ['like on a repeated header', [{ field: 'tag', operator: 'like', value: ['LEA'] }]],
  ['endpoints.<field> matches either endpoint', [{ field: 'endpoints.site', operator: 'equal', value: ['CHIC'] }]],
  ['not_equal on endpoints excludes a match on either', [{ field: 'endpoints.site', operator: 'not_equal', value: ['CHIC'] }]],
  ['like on endpoints.name', [{ field: 'endpoints.name', operator: 'like', value: ['CR1'] }]],
  ['not_like on endpoints.name', [{ field: 'endpoints.name', operator: 'not_like', value: ['cr1'] }]],
  ['equal on a coordinate', [{ field: 'endpoints.latitude', operator: 'equal', value: ['52.3676'] }]],
  ['field names ignore case', [{ field: 'REGION', operator: 'equal', value: ['us'] }, { field: 'Endpoints.Site', operator: 'equal', value: ['NEWY'] }]],
  ['filters AND together', [{ field: 'region', operator: 'equal', value: ['eu'] }, { field: 'capacity', operator: 'equal', value: ['100'] }]],
  ['three filters, mixed operators', [
    { field: 'endpoints.region', operator: 'equal', value: ['us'] },
    { field: 'description', operator: 'not_like', value: ['backup'] },
    { field: 'capacity', operator: 'not_equal', value: ['10'] },
  ]],
  ['equal with no values matches nothing', [{ field: 'region', operator: 'equal', value: [] }]],
  ['not_equal with no values keeps everything', [{ field: 'region', operator: 'not_equal', value: [] }]],
];

const nodesRows = (): Cell[][] => [['name', 'latitude', 'longitude', 'site', 'region'],
  ...NODES.map((n) => [n.name, n.latitude, n.longitude, n.site, n.region])];

let dir: string;
let cleanup: () => Promise<void>;
let registry: DatasourceRegistry;
const { header, rows, refs } = fixture();
const FILES = { xlsx: endpoint('fixture', 'Circuits'), csv: endpoint('fixture-inline', 'fixture-inline') };

before(async () => {
  ({ dir, cleanup } = await tempDir());
  await writeXlsx(dir, 'fixture.xlsx', [{ name: 'Circuits', rows: [header, ...rows] }, { name: 'Nodes', rows: nodesRows() }]);
  // The CSV carries coordinates and node fields inline instead of a Nodes tab.
  const inline = ['source_latitude', 'source_longitude', 'source_site', 'source_region', 'destination_latitude', 'destination_longitude', 'destination_site', 'destination_region'];
  const byName = new Map(NODES.map((n) => [n.name, n]));
  await writeCsv(dir, 'fixture-inline.csv', [[...header, ...inline], ...rows.map((row) => {
    const [a, b] = [byName.get(row[1] as string)!, byName.get(row[2] as string)!];
    return [...row, a.latitude, a.longitude, a.site, a.region, b.latitude, b.longitude, b.site, b.region];
  })]);
  registry = registryFor(dir);
});
after(() => cleanup());

describe('filters', () => {
  for (const [label, filters] of CASES) {
    for (const [kind, ep] of Object.entries(FILES)) {
      it(`${label} (${kind})`, async () => {
        const expected = reference(refs, filters);
        const { records, problems } = await registry.run(query(ep, filters as never));
        assert.deepEqual(problems, []);
        assert.deepEqual(records.map((r) => r.id), expected);
      });
    }
  }

  it('the fixture exercises each case: no case is all rows or no rows unless it says so', () => {
    for (const [label, filters] of CASES) {
      const n = reference(refs, filters).length;
      if (label.includes('no values')) continue;
      assert.ok(n > 0 && n < refs.length, `${label}: ${n} of ${refs.length}`);
    }
  });

  for (const operator of ['', null]) {
    it(`operator ${JSON.stringify(operator)} means equal (through the request schema)`, async () => {
      const parsed = v.parse(QuerySchema, { endpoint: FILES.xlsx, filters: [{ field: 'region', operator, value: 'eu' }] });
      const { records } = await registry.run(parsed);
      assert.deepEqual(records.map((r) => r.id), reference(refs, [{ field: 'region', operator: 'equal', value: ['eu'] }]));
    });
  }

  it('accepts + and %20 for a space in the endpoint string', async () => {
    const spaced = 'fixture copy';
    const { copyFile } = await import('node:fs/promises');
    await copyFile(`${dir}/fixture.xlsx`, `${dir}/${spaced}.xlsx`);
    const plus = await registry.run(query('spreadsheet?sheet_id=fixture+copy&sheet_name=Circuits'));
    const pct = await registry.run(query('spreadsheet?sheet_id=fixture%20copy&sheet_name=Circuits'));
    assert.equal(plus.records.length, refs.length);
    assert.deepEqual(pct.records, plus.records);
  });
});

describe('field names a query uses must exist', () => {
  const unknown: [string, string][] = [['colour', 'a column the sheet lacks'], ['endpoints.colour', 'an endpoint field it lacks'],
    ['hasOwnProperty', 'an inherited property name'], ['endpoints.constructor', 'an inherited name on endpoints'],
    ['source_site', 'an inline column (it is endpoints.site)']];
  for (const [field, label] of unknown) {
    it(`422 naming the available columns for ${label}`, async () => {
      const err = await rejectsWith(registry.run(query(FILES.csv, [{ field: 'region', value: ['eu'] }, { field, value: ['x'] }])), 'validation_failed');
      assert.equal(err.status, 422);
      assert.equal(err.errors?.[0].path, 'query.filters.1.field');
      assert.match(err.message, /available: id, name, source, destination, capacity, region, tag, description, endpoints\.name, endpoints\.latitude/);
    });
  }

  it('accepts deduplication and grouping by endpoint fields', async () => {
    const result = await registry.run(query(FILES.xlsx, [], {
      node_deduplication_field: 'site', node_group_criteria: ['region', 'site'], node_group_layout: 'circle',
    }));
    assert.equal(result.records.length, refs.length);
  });

  it('names the stored spelling of a near miss (the renderer reads fields as given)', async () => {
    const err = await rejectsWith(registry.run(query(FILES.xlsx, [], { node_group_criteria: ['Endpoints.Site'] })), 'validation_failed');
    assert.match(err.message, /no endpoint field "Endpoints.Site" .*\(did you mean "site"\?\)/);
  });

  const badNodeFields: [string, Partial<Parameters<typeof query>[2]>, string][] = [
    ['an unknown deduplication field', { node_deduplication_field: 'colour' }, 'query.node_deduplication_field'],
    ['a record column used for grouping', { node_group_criteria: ['site', 'capacity'] }, 'query.node_group_criteria.1'],
  ];
  for (const [label, extra, path] of badNodeFields) {
    it(`422 for ${label}, naming the endpoint fields`, async () => {
      const err = await rejectsWith(registry.run(query(FILES.xlsx, [], extra)), 'validation_failed');
      assert.equal(err.errors?.[0].path, path);
      assert.match(err.message, /available: name, latitude, longitude, site, region/);
    });
  }
});
