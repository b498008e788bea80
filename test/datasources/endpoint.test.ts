// checkEndpoint (dataset create): the endpoint string's form and kind are
// checked without reading any file.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DatasourceRegistry } from '../../datasources/types.ts';
import { registryFor, tempDir } from './helpers.ts';

let registry: DatasourceRegistry;
let cleanup: () => Promise<void>;
before(async () => {
  const t = await tempDir();
  cleanup = t.cleanup;
  registry = registryFor(t.dir); // empty folder: nothing is read anyway
});
after(() => cleanup());

describe('checkEndpoint', () => {
  const good = [
    'spreadsheet?sheet_id=rne-backbone&sheet_name=Circuits',
    'spreadsheet?sheet_name=Circuits&sheet_id=rne-backbone',
    'spreadsheet?sheet_id=my+sheet&sheet_name=Tab%201',
    'spreadsheet?sheet_id=not-there-yet&sheet_name=x',
    'spreadsheet?sheet_id=%C3%A9t%C3%A9&sheet_name=%E2%9C%93',
  ];
  for (const endpoint of good) {
    it(`accepts ${endpoint}`, () => assert.doesNotThrow(() => registry.checkEndpoint(endpoint)));
  }

  const bad: [string, RegExp][] = [
    ['', /unknown datasource kind ""/],
    ['excel?sheet_id=a&sheet_name=b', /unknown datasource kind "excel"; expected spreadsheet/],
    ['spreadsheet', /sheet_id is missing/],
    ['spreadsheet?sheet_id=a', /sheet_name is missing/],
    ['spreadsheet?sheet_id=&sheet_name=b', /sheet_id is missing or empty/],
    ['spreadsheet?sheet_id=a&sheet_id=b&sheet_name=c', /sheet_id is given more than once/],
    ['spreadsheet?sheet_id=a&sheet_name=b&colour=red', /unknown parameter "colour"/],
    ['spreadsheet?sheet_id=..%2Fsecrets&sheet_name=b', /file name without extension/],
    ['spreadsheet?sheet_id=..\\x&sheet_name=b', /file name without extension/],
    ['spreadsheet?sheet_id=.hidden&sheet_name=b', /no leading dot/],
    ['spreadsheet?sheet_id=a%00b&sheet_name=b', /control characters/],
    [`spreadsheet?sheet_id=a&sheet_name=${'x'.repeat(256)}`, /at most 255/],
  ];
  for (const [endpoint, message] of bad) {
    it(`422 for ${JSON.stringify(endpoint.slice(0, 60))}`, () => {
      assert.throws(() => registry.checkEndpoint(endpoint), (e: Error & { code: string; status: number; errors: { path: string }[] }) => {
        assert.equal(e.code, 'validation_failed');
        assert.equal(e.status, 422);
        assert.equal(e.errors[0].path, 'query.endpoint');
        assert.match(e.message, message);
        return true;
      });
    });
  }
});
