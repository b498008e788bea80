// The data folder's rules for versioned resources (resources/stored-shape.ts):
// files that people edit, merge and check out by hand are checked at start,
// and one that breaks a rule stops the start with a message naming it,
// instead of 500s on every list of its collection later. Each case writes one
// file into a temp copy of a valid data folder.
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parseSettings } from '../../config/settings.ts';
import { createMemoryLogger } from '../../log.ts';
import { createApp } from '../../server.ts';
import { openFileStore } from '../../store/file.ts';

const DEMO = path.resolve(import.meta.dirname, '../../data');
const MAP = 'uLEsNLU';
const demoMap = async () => JSON.parse(await readFile(path.join(DEMO, 'maps', `${MAP}.json`), 'utf8')) as { versions: Record<string, unknown>[] };

/** Starts the app on a copy of the demo data with `file` written as `text`; the start's error message, or undefined when it started. */
async function startWith(file: string, text: string): Promise<string | undefined> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mts-shape-'));
  const data = path.join(dir, 'data');
  await cp(DEMO, data, { recursive: true, filter: (src) => !/[\\/](private|\.lock)$/.test(src) });
  await writeFile(path.join(data, file), text);
  const store = await openFileStore(data);
  try {
    const settings = parseSettings({ data: { dir: data } }, {}, dir);
    await createApp({ settings, store, log: createMemoryLogger(), adminPassword: 'shape test password' });
    return undefined;
  } catch (e) {
    return (e as Error).message;
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

describe('data folder: versioned resources are checked at start', () => {
  const cases: Array<[string, string, (m: Awaited<ReturnType<typeof demoMap>>) => unknown, RegExp]> = [
    ['an object without versions', `maps/Abcdefg.json`, () => ({}), /^data folder: maps\/Abcdefg\.json: expected \{"versions": \[\.\.\.\]\}/],
    ['a bare array', `templates/Abcdefg.json`, () => [], /templates\/Abcdefg\.json: expected \{"versions"/],
    ['a version with no number', `maps/${MAP}.json`, (m) => ({ versions: [...m.versions, { ...m.versions[1], version: undefined }] }),
      /maps\/uLEsNLU\.json: versions\[2\] has version undefined; versions must be whole numbers from 1 up, each greater than the one before/],
    ['a version number as text', `maps/${MAP}.json`, (m) => ({ versions: [m.versions[0], { ...m.versions[1], version: '2' }] }), /versions\[1\] has version "2"/],
    ['two versions numbered alike', `maps/${MAP}.json`, (m) => ({ versions: [...m.versions, m.versions[1]] }), /versions\[2\] has version 2/],
    ['versions out of order', `maps/${MAP}.json`, (m) => ({ versions: [m.versions[1], m.versions[0]] }), /versions\[1\] has version 1/],
    ['a version of another ID', `maps/${MAP}.json`, (m) => ({ versions: [m.versions[0], { ...m.versions[1], mapId: 'Zzzzzzz' }] }),
      /maps\/uLEsNLU\.json: versions\[1\] has mapId "Zzzzzzz", not the file's name uLEsNLU/],
    ['a file named like no ID (a merge tool leftover)', `maps/${MAP}_BASE_12345.json`, (m) => m, /maps\/uLEsNLU_BASE_12345\.json: the file name is not an ID/],
    ['results without records', 'results/v1Fu2vW.v2.json', () => ({}), /results\/v1Fu2vW\.v2\.json: expected \{"records": \[\.\.\.\], "problems": \[\.\.\.\]/],
  ];
  for (const [what, file, content, message] of cases) {
    it(`${what} stops the start, naming the file`, async () => {
      const why = await startWith(file, JSON.stringify(content(await demoMap()), null, 2));
      assert.match(why ?? '(started)', message);
      assert.match(why!, /fix or move the file, then start again$/);
    });
  }

  it('the demo folder itself, and a map missing a middle version, start', async () => {
    assert.equal(await startWith('notes.txt', 'not data'), undefined);
    const m = await demoMap();
    assert.equal(await startWith(`maps/${MAP}.json`, JSON.stringify({ versions: [m.versions[1]] })), undefined);
  });
});
