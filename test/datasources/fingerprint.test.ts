// The registry's fingerprint of an endpoint (what the output cache compares
// for live data): the same while the sheet's file and folder are untouched,
// another after the file is rewritten, replaced, or shadowed by an .xlsx of
// the same sheet_id; undefined for a sheet that is not there; the endpoint's
// own 422 for a malformed one. Nothing is read but the folder and file stats.
import assert from 'node:assert/strict';
import { rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { registryFor, tempDir, writeXlsx } from './helpers.ts';

const ENDPOINT = 'spreadsheet?sheet_id=circuits&sheet_name=circuits';
const CSV = 'source,destination\na,b\n';

describe('datasources fingerprint', () => {
  it('changes exactly when the data the endpoint reads may have changed', async () => {
    const { dir, cleanup } = await tempDir();
    const registry = registryFor(dir);
    try {
      const fp = () => registry.fingerprint!(ENDPOINT);
      assert.equal(await fp(), undefined, 'no sheet yet');
      await writeFile(path.join(dir, 'circuits.csv'), CSV);
      const first = await fp();
      assert.match(first ?? '', /^spreadsheet:circuits\.csv:/);
      assert.equal(await fp(), first, 'untouched: the same');
      await writeFile(path.join(dir, 'other.csv'), CSV);
      assert.equal(await fp(), first, 'another sheet added to the folder: the same');

      await writeFile(path.join(dir, 'circuits.csv'), 'source,destination\na,c\n');
      const rewritten = await fp();
      assert.notEqual(rewritten, first, 'rewritten in place');
      await writeFile(path.join(dir, 'next.tmp'), CSV);
      await rename(path.join(dir, 'next.tmp'), path.join(dir, 'circuits.csv'));
      const replaced = await fp();
      assert.notEqual(replaced, rewritten, 'replaced by a rename');

      await writeXlsx(dir, 'circuits.xlsx', [{ name: 'circuits', rows: [['source', 'destination'], ['a', 'b']] }]);
      assert.match((await fp()) ?? '', /^spreadsheet:circuits\.xlsx:/, 'an .xlsx of the same sheet_id wins, as for reads');
      await rm(path.join(dir, 'circuits.xlsx'));
      await rm(path.join(dir, 'circuits.csv'));
      assert.equal(await fp(), undefined, 'removed');
      await symlink(path.join(dir, 'other.csv'), path.join(dir, 'circuits.csv'));
      assert.match((await fp()) ?? '', /^spreadsheet:circuits\.csv:/, 'a link inside the folder: its target');
    } finally {
      await registry.close();
      await cleanup();
    }
  });

  it('a malformed endpoint is the 422 a query of it gets', async () => {
    const { dir, cleanup } = await tempDir();
    const registry = registryFor(dir);
    try {
      await assert.rejects(registry.fingerprint!('spreadsheet?sheet_id=../x&sheet_name=x'), (e: any) => e.status === 422);
      await assert.rejects(registry.fingerprint!('spreadsheet?sheet_id=x'), (e: any) => e.status === 422);
    } finally {
      await registry.close();
      await cleanup();
    }
  });
});
