// Metrics sources from the settings (traffic/sources.ts), checked at start
// with messages naming the key; and the query plan's pure parts
// (traffic/promql.ts): label values escaped, chunks within the request cap.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseSettings, SettingsError } from '../../config/settings.ts';
import { chunkQuery, chunks, CHUNK_INTERFACES, MAX_REQUESTS, SNMP_NAMES } from '../../traffic/promql.ts';
import { createTrafficSources } from '../../traffic/sources.ts';

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mts-sources-'));
  await writeFile(path.join(dir, 'password'), 'hunter2-secret\n');
});
after(() => rm(dir, { recursive: true, force: true }));

const sources = (main: object) => createTrafficSources(parseSettings({ metrics: { sources: { main } } }, {}, dir), dir);
const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof SettingsError, String(e));
    return e.message;
  }
  assert.fail('accepted');
};

describe('metrics.sources in the settings', () => {
  const bad: [string, object, RegExp][] = [
    ['a prometheus source without url', {}, /metrics\.sources\.main\.url: expected url/],
    ['a url that is not http', { url: 'ftp://x' }, /metrics\.sources\.main\.url: expected an http or https URL/],
    ['a window that is not a duration', { url: 'http://p:9090', window: 'five minutes' }, /metrics\.sources\.main\.window: expected a duration/],
    ['an unknown preset', { url: 'http://p:9090', preset: 'netflow' }, /metrics\.sources\.main\.preset: expected snmp or custom/],
    ['metric names without preset custom', { url: 'http://p:9090', metrics: { inOctets: 'x' } }, /metrics\.sources\.main\.metrics: metrics are names for preset custom/],
    ['a token file that is not there', { url: 'http://p:9090', bearerTokenFile: 'nope' }, /metrics\.sources\.main\.bearerTokenFile: cannot read nope \(ENOENT\)/],
    ['an unknown key', { url: 'http://p:9090', token: 'x' }, /metrics\.sources\.main\.token: is not a known setting/],
  ];
  for (const [what, main, message] of bad) it(`stops the start for ${what}, naming the key`, () => assert.match(refusal(() => sources(main)), message));

  it('builds a source with basic auth from its password file, without ever showing the password', () => {
    const s = sources({ url: 'http://user:pw@p:9090/prom/', basicAuth: { username: 'grafana', passwordFile: 'password' }, job: 'snmp' }).get('main')!;
    const shown = JSON.stringify(s.describe());
    assert.deepEqual(s.describe(), { url: 'http://p:9090/prom', job: 'snmp', window: '300s', step: '60s', timeout: '5s', authenticated: true });
    assert.ok(!shown.includes('hunter2') && !shown.includes('pw@'));
    assert.match(refusal(() => sources({ url: 'http://p:9090', basicAuth: { username: 'u', passwordFile: 'password' }, bearerTokenFile: 'password' })), /not both/);
  });

  it('always has the demo source', () => assert.equal(createTrafficSources(parseSettings({}, {}, dir)).get('demo')?.kind, 'synthetic'));
});

describe('the query plan', () => {
  it('escapes label values as regex literals inside PromQL strings', () => {
    const q = chunkQuery([{ instance: 'core.r(1)', ifName: 'et-0/0/0.100|x"y\\z' }], { names: SNMP_NAMES, job: 'sn"mp', windowSeconds: 300, stepSeconds: 60 }, { at: 0 });
    assert.ok(q.includes('instance=~"core\\\\.r\\\\(1\\\\)"'), q);
    assert.ok(q.includes('ifName=~"et-0/0/0\\\\.100\\\\|x\\"y\\\\\\\\z"'), q);
    assert.ok(q.includes('job="sn\\"mp"'), q);
    assert.equal(q.split(' or ').length, 5);
  });

  const table: [number, number][] = [[1, 1], [CHUNK_INTERFACES, 1], [CHUNK_INTERFACES + 1, 2], [5000, 3], [50_000, MAX_REQUESTS]];
  for (const [n, requests] of table) {
    it(`reads ${n} interfaces in ${requests} request(s), each interface once`, () => {
      const list = Array.from({ length: n }, (_, i) => ({ instance: `r${i % 97}`, ifName: `xe-${i}` }));
      const planned = chunks([...list, ...list.slice(0, 5)]);
      assert.equal(planned.length, requests);
      assert.equal(planned.flat().length, n);
    });
  }
});
