// Loading the built-in provider on the Node versions the service allows
// prints no "Unsupported runtime" line (auth/oidc/runtime-notice.ts), while
// other warnings still reach stderr.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';

const root = path.resolve(import.meta.dirname, '../..');

describe('oidc-provider\'s runtime notice', () => {
  it('is not printed when the provider module loads; other warnings are', async () => {
    const script = "await import('./auth/oidc/provider.ts'); console.warn('another warning');";
    const { stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root });
    assert.doesNotMatch(stderr, /Unsupported runtime/);
    assert.match(stderr, /another warning/);
  });
});
