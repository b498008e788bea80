// One process of the fast runner (run.ts): it imports each test file named
// on its command line inside a suite of the file's name, so node:test runs
// them all in this process and loads tsx and the service's modules once.
// The suite scopes each file's top-level hooks (before, beforeEach, after)
// to that file's tests, as a process of its own would.
import { describe } from 'node:test';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

for (const file of process.argv.slice(2)) {
  describe(file, async () => {
    await import(pathToFileURL(resolve(file)).href);
  });
}
