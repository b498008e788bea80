import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ServiceError, notFound, datasourceUnavailable } from '../../errors.ts';
import { layerSource, resolveMapLayers, type LayerLoaders } from '../../output/layers.ts';
import { parseDatasetOutputUrl } from '../../schema/output-url.ts';
import type { MapLayer } from '../../schema/map.ts';
import { backbone } from '../render/fixtures.ts';

const query = { endpoint: 'spreadsheet?sheet_id=a&sheet_name=b', filters: [], node_deduplication_field: null, node_group_criteria: null, node_group_layout: null };

function loaders(calls: string[] = []): LayerLoaders {
  return {
    async dataset(id, version, datatype) {
      calls.push(`${id}:${version}:${datatype}`);
      if (id === 'Missing') throw notFound(`dataset ${id} not found`);
      if (id === 'Offline') throw datasourceUnavailable('the sheet cannot be read');
      return { name: `DS ${id}`, query, records: backbone() };
    },
    async template(id) {
      if (id !== 'Tmpl123') throw notFound(`template ${id} not found`);
      return '<g data-width="6" data-height="6"><rect x="-3" y="-3" width="6" height="6"/></g>';
    },
  };
}

describe('parseDatasetOutputUrl', () => {
  const cases: [string, unknown][] = [
    ['https://terranova.example/api/v1/output/dataset/AbC1234/geographic/snapshot/?version=3&template=Tmpl123',
      { datasetId: 'AbC1234', layout: 'geographic', datatype: 'snapshot', version: 3, templateId: 'Tmpl123' }],
    ['/api/v1/output/dataset/AbC1234/logical/live/json', { datasetId: 'AbC1234', layout: 'logical', datatype: 'dynamic', version: 'latest', templateId: null }],
    ['/api/v1/output/dataset/AbC1234/logical/dynamic/', { datasetId: 'AbC1234', layout: 'logical', datatype: 'dynamic', version: 'latest', templateId: null }],
    // Terranova's editor writes static and live
    ['https://maps.example/api/v1/output/dataset/AbC1234/geographic/static/?version=2', { datasetId: 'AbC1234', layout: 'geographic', datatype: 'snapshot', version: 2, templateId: null }],
    ['https://example.com/topology.json', null],
    ['/api/v1/output/dataset/../../etc/geographic/snapshot/', null],
    ['/api/v1/output/dataset/AbC1234/sideways/snapshot/', null],
    ['/api/v1/output/dataset/AbC1234/geographic/snapshot/?version=latest', { datasetId: 'AbC1234', layout: 'geographic', datatype: 'snapshot', version: 'latest', templateId: null }],
    // what the output route refuses is a problem, never quietly the latest version or no template
    ['/api/v1/output/dataset/AbC1234/geographic/snapshot/?version=abc', { problem: 'version "abc" is not latest or a version number' }],
    ['/api/v1/output/dataset/AbC1234/geographic/snapshot/?version=0', { problem: 'version "0" is not latest or a version number' }],
    ['/api/v1/output/dataset/AbC1234/geographic/snapshot/?version=1&version=2', { problem: 'version "1&2" is not latest or a version number' }],
    ['/api/v1/output/dataset/AbC1234/geographic/snapshot/?template=../x', { problem: 'template "../x" is not a template ID (7 letters or digits)' }],
    ['/api/v1/output/dataset/AbC1234/geographic/snapshot/?version=1234567890', { problem: 'version "1234567890" is not latest or a version number' }],
    // editors that build the URL write empty parameters for none
    ['/api/v1/output/dataset/AbC1234/geographic/snapshot/?version=&template=', { datasetId: 'AbC1234', layout: 'geographic', datatype: 'snapshot', version: 'latest', templateId: null }],
  ];
  for (const [url, expected] of cases) it(url, () => assert.deepEqual(parseDatasetOutputUrl(url), expected));
});

describe('layerSource', () => {
  it('prefers mapjsonUrl (what URL-only editors write last), then datasetId, then inline mapjson, with defaults', () => {
    assert.deepEqual(layerSource({ datasetId: 'AbC1234', datatype: 'live' }, 0), { kind: 'dataset', datasetId: 'AbC1234', version: 'latest', layout: 'geographic', datatype: 'dynamic', templateId: null });
    assert.deepEqual(layerSource({ datasetId: 'AbC1234', mapjsonUrl: 'https://maps.example/api/v1/output/dataset/Other12/logical/static/?version=3' }, 0),
      { kind: 'dataset', datasetId: 'Other12', version: 3, layout: 'logical', datatype: 'snapshot', templateId: null });
    assert.equal(layerSource({ datasetId: 'AbC1234', mapjsonUrl: 'https://example.com/x.json' }, 0).kind, 'dataset', 'an unusable URL leaves the datasetId');
    assert.equal(layerSource({ datasetId: 'AbC1234', datatype: 'static' }, 0).kind, 'dataset');
    const inline = layerSource({ mapjson: JSON.stringify({ name: 'i', nodes: [{ name: 'n', coordinate: [1, 2], meta: {} }], edges: [] }) }, 0);
    assert.equal(inline.kind, 'inline');
    assert.deepEqual(layerSource({ name: 'New layer' }, 0), { kind: 'none' }, 'an editor\'s new layer names no data yet');
  });
  const bad: [MapLayer, RegExp][] = [
    [{ mapjsonUrl: 'https://example.com/x.json' }, /layer 2: mapjsonUrl is not a dataset output URL/],
    [{ mapjsonUrl: '/api/v1/output/dataset/AbC1234/logical/live/?version=-1' }, /layer 2: mapjsonUrl: version "-1" is not latest or a version number/],
    [{ mapjson: '{not json' }, /layer 2: mapjson is not topology JSON/],
    // kept extra keys are stringified later: a string nesting deeper than 64 levels is refused as it is parsed
    [{ mapjson: `{"nodes": [], "edges": [], "x": ${'['.repeat(64)}${']'.repeat(64)}}` }, /layer 2: mapjson is not topology JSON \(.*at most 64 levels deep\)/],
    [{ mapjson: `{"nodes": [], "edges": [], "x": ${'['.repeat(20000)}${']'.repeat(20000)}}` }, /layer 2: mapjson is not topology JSON/],
  ];
  for (const [layer, msg] of bad) {
    it(`refuses ${JSON.stringify(layer)} with 422`, () => assert.throws(() => layerSource(layer, 1), (e: ServiceError) => e.status === 422 && msg.test(e.message)));
  }
});

describe('resolveMapLayers', () => {
  it('resolves each layer into a mapjson string, applies overrides per dataset, keeps unknown keys', async () => {
    const calls: string[] = [];
    const map = {
      name: 'm',
      configuration: {
        background: '#fff', custom: 1,
        layers: [
          { name: 'A', datasetId: 'AbC1234', color: '#f00', extra: 'kept' },
          { name: 'B', mapjsonUrl: '/api/v1/output/dataset/AbC1234/geographic/snapshot/?template=Tmpl123' },
          { name: 'C', mapjson: { name: 'inline', nodes: [{ name: 'Q', coordinate: [1, 1], meta: { svg: '<script/>' } }], edges: [] } },
        ],
      },
      overrides: { AbC1234: { nodes: { CHI1: { operation: 'delete' as const } }, edges: {} } },
    };
    const { output, topologies } = await resolveMapLayers(map, loaders(calls));
    assert.equal(calls.length, 1, 'one dataset read shared by layers A and B');
    assert.equal((output.configuration as Record<string, unknown>).custom, 1);
    const [a, b, c] = output.configuration.layers;
    assert.equal(a.extra, 'kept');
    assert.equal(typeof a.mapjson, 'string');
    const ta = JSON.parse(String(a.mapjson));
    assert.equal(ta.name, 'DS AbC1234');
    assert.deepEqual(ta.nodes.map((n: { name: string }) => n.name), ['SEA1', 'DEN1', 'SEA2']);
    assert.match(JSON.parse(String(b.mapjson)).nodes[0].meta.svg, /<rect/);
    assert.equal(JSON.parse(String(c.mapjson)).nodes[0].meta.svg, '', 'inline markup sanitized');
    assert.equal(topologies.length, 3);
    assert.equal(Object.hasOwn(map.configuration.layers[0], 'mapjson'), false, 'input untouched');
    assert.equal(a.mapjsonUrl, '/api/v1/output/dataset/AbC1234/geographic/static/', 'a datasetId layer gains the equivalent mapjsonUrl');
    assert.equal(b.mapjsonUrl, map.configuration.layers[1].mapjsonUrl, 'a written one stays');
  });

  it('gives a layer with no data mapjson null and a warning naming it', async () => {
    const { output, topologies, warnings } = await resolveMapLayers({ configuration: { layers: [{ name: 'Empty' }] }, overrides: {} }, loaders());
    assert.equal((output.configuration.layers[0] as Record<string, unknown>).mapjson, null);
    assert.deepEqual(topologies, [null]);
    assert.match(warnings[0], /layer 1 \("Empty"\) names no data yet/);
  });

  it('applies overrides by the dataset a layer draws: its mapjsonUrl\'s over a disagreeing datasetId', async () => {
    const calls: string[] = [];
    const { output } = await resolveMapLayers({
      configuration: { layers: [{ datasetId: 'Other12', mapjsonUrl: '/api/v1/output/dataset/AbC1234/geographic/live/' }] },
      overrides: { AbC1234: { nodes: { CHI1: { operation: 'delete' as const } }, edges: {} }, Other12: { nodes: { SEA1: { operation: 'delete' as const } }, edges: {} } },
    }, loaders(calls), { baseUrl: 'https://maps.example' });
    assert.deepEqual(calls.map((c) => c.split(':')[0]), ['AbC1234']);
    const names = JSON.parse(String((output.configuration.layers[0] as Record<string, unknown>).mapjson)).nodes.map((n: { name: string }) => n.name);
    assert.ok(names.includes('SEA1') && !names.includes('CHI1'), names.join());
  });

  it('writes the equivalent mapjsonUrl as Terranova\'s editor does: static or live, version and template', async () => {
    const { output } = await resolveMapLayers({ configuration: { layers: [
      { datasetId: 'AbC1234', datasetVersion: 2, layout: 'logical', templateId: 'Tmpl123' },
      { datasetId: 'AbC1234', datatype: 'dynamic' },
    ] }, overrides: {} }, loaders(), { baseUrl: 'https://maps.example' });
    assert.deepEqual(output.configuration.layers.map((l) => (l as Record<string, unknown>).mapjsonUrl), [
      'https://maps.example/api/v1/output/dataset/AbC1234/logical/static/?version=2&template=Tmpl123',
      'https://maps.example/api/v1/output/dataset/AbC1234/geographic/live/',
    ]);
  });

  const failures: [MapLayer, number, RegExp][] = [
    [{ name: 'Core', datasetId: 'Missing' }, 404, /^layer 1 \("Core"\): dataset Missing not found/],
    [{ datasetId: 'Offline', datatype: 'dynamic' }, 503, /^layer 1: the sheet cannot be read/],
    [{ datasetId: 'AbC1234', templateId: 'Nope123' }, 404, /^layer 1: template Nope123 not found/],
  ];
  for (const [layer, status, msg] of failures) {
    it(`names the layer in a ${status}`, async () => {
      await assert.rejects(resolveMapLayers({ configuration: { layers: [layer] }, overrides: {} }, loaders()),
        (e: ServiceError) => e instanceof ServiceError && e.status === status && msg.test(e.message));
    });
  }
});
