// What installing the service does beyond copying files: nothing that calls
// out. swagger-ui-dist depends on @scarf/scarf, whose install script reports
// the install to scarf.sh unless the root package opts out (its report.js
// reads scarfSettings.enabled from our package.json).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const pkg = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '..', 'package.json'), 'utf8'));

describe('package.json', () => {
  it('turns Scarf\'s install telemetry off', () => {
    assert.equal(pkg.scarfSettings?.enabled, false);
  });

  it('pins every dependency to an exact version', () => {
    const ranges = Object.entries({ ...pkg.dependencies, ...pkg.devDependencies }).filter(([, v]) => !/^\d+\.\d+\.\d+$/.test(String(v)));
    assert.deepEqual(ranges, []);
  });
});
