// Node coordinates under other headers and in other lookup tabs (docs/
// spreadsheets.md): lat, lon, lng and long (any case) beside latitude and
// longitude, in the lookup tab and as source_/destination_ row columns; the
// lookup tab may be named Nodes, Sites or Locations.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { EdgeRecord } from '../../datasources/types.ts';
import { endpoint, query, registryFor, tempDir, writeCsv, writeXlsx } from './helpers.ts';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
});
afterEach(() => cleanup());

const CIRCUITS = { name: 'Circuits', rows: [['source', 'destination'], ['chic', 'newy']] };
const places = (records: EdgeRecord[]) =>
  records.flatMap((r) => r.endpoints.map((e) => [e.name, e.latitude, e.longitude]));

describe('coordinate headers', () => {
  for (const [lat, lng] of [['Lat', 'Lon'], ['LAT', 'LNG'], ['lat', 'long'], [' Lat ', 'Long'], ['latitude', 'lng']]) {
    it(`a lookup tab with ${JSON.stringify(lat)} / ${JSON.stringify(lng)} gives positions`, async () => {
      await writeXlsx(dir, 'net.xlsx', [CIRCUITS, { name: 'Nodes', rows: [['Name', lat, lng], ['chic', 41.88, -87.63], ['newy', 40.71, -74.01]] }]);
      const registry = registryFor(dir);
      const { records, problems } = await registry.run(query(endpoint('net', 'Circuits')));
      assert.deepEqual(places(records), [['chic', 41.88, -87.63], ['newy', 40.71, -74.01]]);
      assert.deepEqual(problems, []);
      // The listing says so, and filters use the one name.
      const entry = (await registry.list())[endpoint('net', 'Circuits')];
      assert.match(entry.description, /with coordinates/);
      assert.ok((entry.columns as string[]).includes('endpoints.latitude'));
      assert.ok(!(entry.columns as string[]).includes('endpoints.lat'));
    });
  }

  it('source_lat / source_lng / destination_Lat / destination_LONG row columns give positions', async () => {
    await writeCsv(dir, 'rows.csv', [
      ['source', 'destination', 'source_lat', 'source_lng', 'destination_Lat', 'destination_LONG'],
      ['chic', 'newy', '41.88', '-87.63', '40.71', '-74.01'],
    ]);
    const { records, problems } = await registryFor(dir).run(query(endpoint('rows', 'rows')));
    assert.deepEqual(places(records), [['chic', 41.88, -87.63], ['newy', 40.71, -74.01]]);
    assert.deepEqual(problems, []);
  });

  it('a half position under the other spellings is reported like any other', async () => {
    await writeCsv(dir, 'half.csv', [['source', 'destination', 'source_lat', 'destination_lon'], ['a', 'b', '1', '2']]);
    const { records, problems } = await registryFor(dir).run(query(endpoint('half', 'half')));
    assert.deepEqual(records, []);
    assert.match(problems[0].message, /source "a" has a latitude without a longitude/);
  });

  it('a record\'s own lat/long columns stay metadata (only endpoint fields are coordinates)', async () => {
    await writeCsv(dir, 'own.csv', [['source', 'destination', 'long'], ['a', 'b', 'yes']]);
    const { records } = await registryFor(dir).run(query(endpoint('own', 'own')));
    assert.equal(records[0].long, 'yes');
    assert.equal(records[0].endpoints[0].longitude, undefined);
  });

  it('two spellings of one coordinate: the first is used, the other reported', async () => {
    await writeXlsx(dir, 'two.xlsx', [CIRCUITS, { name: 'Nodes', rows: [['name', 'lat', 'latitude', 'lon'], ['chic', 1, 9, 2], ['newy', 3, 9, 4]] }]);
    const { records, problems } = await registryFor(dir).run(query(endpoint('two', 'Circuits')));
    assert.deepEqual(places(records), [['chic', 1, 2], ['newy', 3, 4]]);
    assert.match(problems[0].message, /column "latitude" repeats "latitude"/);
  });
});

describe('lookup tab names', () => {
  for (const tab of ['Sites', 'Locations', 'SITES', 'nodes']) {
    it(`a tab named ${tab} is the lookup, not an edge sheet`, async () => {
      await writeXlsx(dir, 'net.xlsx', [CIRCUITS, { name: tab, rows: [['name', 'Lat', 'Lon', 'site'], ['chic', 41.88, -87.63, 'CHIC'], ['newy', 40.71, -74.01, 'NEWY']] }]);
      const registry = registryFor(dir);
      const { records } = await registry.run(query(endpoint('net', 'Circuits')));
      assert.deepEqual(places(records), [['chic', 41.88, -87.63], ['newy', 40.71, -74.01]]);
      assert.equal(records[0].endpoints[0].site, 'CHIC');
      assert.deepEqual(Object.keys(await registry.list()), [endpoint('net', 'Circuits')]);
    });
  }

  it('with both, Nodes is the lookup and a Sites tab with circuits stays an edge sheet', async () => {
    await writeXlsx(dir, 'net.xlsx', [
      CIRCUITS,
      { name: 'Sites', rows: [['source', 'destination'], ['x', 'y']] },
      { name: 'Nodes', rows: [['name', 'latitude', 'longitude'], ['chic', 1, 2], ['newy', 3, 4]] },
    ]);
    const registry = registryFor(dir);
    assert.deepEqual(Object.keys(await registry.list()), [endpoint('net', 'Circuits'), endpoint('net', 'Sites')]);
    assert.deepEqual(places((await registry.run(query(endpoint('net', 'Circuits')))).records), [['chic', 1, 2], ['newy', 3, 4]]);
  });

  it('a node missing from the Sites tab is reported naming that tab', async () => {
    await writeXlsx(dir, 'net.xlsx', [CIRCUITS, { name: 'Sites', rows: [['name', 'lat', 'lon'], ['chic', 1, 2]] }]);
    const { problems } = await registryFor(dir).run(query(endpoint('net', 'Circuits')));
    assert.deepEqual(problems.map((p) => p.message), ['node "newy" has no coordinates (not in the "Sites" tab, no latitude/longitude cells in the row); kept without a position']);
  });

  it('a Sites tab without a name column is reported naming that tab', async () => {
    await writeXlsx(dir, 'net.xlsx', [CIRCUITS, { name: 'Sites', rows: [['site', 'lat', 'lon'], ['chic', 1, 2]] }]);
    const { problems } = await registryFor(dir).run(query(endpoint('net', 'Circuits')));
    assert.match(problems[0].message, /the "Sites" tab has no "name" column/);
  });
});
