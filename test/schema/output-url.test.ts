// schema/output-url.ts: the dataset output URL a map layer names. Absolute or
// relative, any host; aliases of the datatype mean the same; a version or a
// template the output route would refuse is a problem, not a silent default.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseDatasetOutputUrl } from '../../schema/output-url.ts';

describe('parseDatasetOutputUrl', () => {
  const parsed: [string, string, object][] = [
    ['relative, no query', '/api/v1/output/dataset/Abc1234/logical/snapshot/',
      { datasetId: 'Abc1234', layout: 'logical', datatype: 'snapshot', version: 'latest', templateId: null }],
    ['another host, json suffix, version and template', 'https://elsewhere.example/api/v1/output/dataset/Abc1234/geographic/dynamic/json/?version=3&template=Tpl0001',
      { datasetId: 'Abc1234', layout: 'geographic', datatype: 'dynamic', version: 3, templateId: 'Tpl0001' }],
    ['static is snapshot', '/api/v1/output/dataset/Abc1234/logical/static/svg',
      { datasetId: 'Abc1234', layout: 'logical', datatype: 'snapshot', version: 'latest', templateId: null }],
    ['live is dynamic, empty template and version=latest', '/api/v1/output/dataset/Abc1234/logical/live/?template=&version=latest',
      { datasetId: 'Abc1234', layout: 'logical', datatype: 'dynamic', version: 'latest', templateId: null }],
  ];
  for (const [name, url, want] of parsed) it(`parses ${name}`, () => assert.deepEqual(parseDatasetOutputUrl(url), want));

  const notOne: [string, string][] = [
    ['a map output', '/api/v1/output/map/Abc1234/'],
    ['an ID of 8 characters', '/api/v1/output/dataset/Abc12345/logical/snapshot/'],
    ['an unknown layout', '/api/v1/output/dataset/Abc1234/radial/snapshot/'],
    ['an unknown datatype', '/api/v1/output/dataset/Abc1234/logical/sometimes/'],
    ['a PNG suffix', '/api/v1/output/dataset/Abc1234/logical/snapshot/png/'],
    ['not a URL at all', 'http://['],
  ];
  for (const [name, url] of notOne) it(`is null for ${name}`, () => assert.equal(parseDatasetOutputUrl(url), null));

  const problems: [string, string, RegExp][] = [
    ['a version that is no number', '?version=two', /^version "two" is not latest or a version number$/],
    ['two versions', '?version=1&version=2', /^version "1&2"/],
    ['version 0', '?version=0', /^version "0"/],
    ['a template of another shape', '?template=../etc', /^template "..\/etc" is not a template ID/],
    ['two templates', '?template=Tpl0001&template=Tpl0002', /^template "Tpl0001&Tpl0002"/],
  ];
  for (const [name, query, want] of problems) {
    it(`names the problem of ${name}`, () => {
      const got = parseDatasetOutputUrl(`/api/v1/output/dataset/Abc1234/logical/snapshot/${query}`);
      assert.ok(got && 'problem' in got, JSON.stringify(got));
      assert.match(got.problem, want);
    });
  }

  it('shows at most 40 characters of a hostile value', () => {
    const got = parseDatasetOutputUrl(`/api/v1/output/dataset/Abc1234/logical/snapshot/?version=${'x'.repeat(500)}`);
    assert.ok(got && 'problem' in got);
    assert.equal(got.problem, `version "${'x'.repeat(40)}" is not latest or a version number`);
  });
});
