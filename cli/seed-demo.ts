// Rebuilds the demo content of a data folder (default ./data) through the
// service's own API: a node template, three datasets over the demo sheets in
// data/sheets (executed, so they carry results) and one published map with a
// layer per dataset. Run with the service stopped:
//   npx tsx cli/seed-demo.ts [data-folder]
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { parseSettings } from '../config/settings.ts';
import { createMemoryLogger } from '../log.ts';
import { createApp } from '../server.ts';
import { openFileStore } from '../store/file.ts';

const dir = path.resolve(process.argv[2] ?? 'data');
const password = 'demo seeding only';

// Only the versioned content is rebuilt; the sheets stay.
for (const folder of ['maps', 'datasets', 'templates', 'results']) {
  await rm(path.join(dir, folder), { recursive: true, force: true });
}

// The seeding account lives in a private folder that is removed at the end.
const scratch = path.join(dir, 'private');
const settings = parseSettings({ data: { dir } }, {}, dir);
const store = await openFileStore(dir);
if (store.get('private', 'users') !== undefined) {
  console.error(`${dir} already has users; run the seed on a folder without private/users.json`);
  await store.close();
  process.exit(2);
}
const app = await createApp({ settings, store, log: createMemoryLogger(), adminPassword: password });

async function call(method: string, url: string, body?: unknown, token?: string) {
  const res = await app.request(url, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, any>;
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

const { access_token: token } = await call('POST', '/api/v1/auth/token', { grant_type: 'password', username: 'admin', password });

const template = await call('POST', '/api/v1/template/', {
  name: 'Router badge',
  template: '<g data-width="18" data-height="18"><rect x="-9" y="-9" width="18" height="18" rx="4" fill="#1d3557" stroke="#ffffff" stroke-width="2"/><text y="22" text-anchor="middle" font-size="9" fill="#1d3557">{{ meta.site }}</text></g>',
}, token);

const BACKBONE = 'spreadsheet?sheet_id=rne-backbone&sheet_name=Circuits';
const EXCHANGES = 'spreadsheet?sheet_id=rne-exchanges&sheet_name=rne-exchanges';
const datasets = [
  { name: 'R&E backbone: North America', query: { endpoint: BACKBONE, filters: [{ field: 'region', operator: 'like', value: ['us-'] }],
    node_deduplication_field: 'name', node_group_criteria: ['site'], node_group_layout: 'circle' } },
  { name: 'R&E backbone: Europe and transatlantic', query: { endpoint: BACKBONE,
    filters: [{ field: 'region', operator: 'equal', value: ['europe', 'transatlantic'] }, { field: 'type', operator: 'not_equal', value: ['intra-site'] }],
    node_deduplication_field: 'site', node_group_criteria: null, node_group_layout: null } },
  { name: 'Exchange point links', query: { endpoint: EXCHANGES, filters: [{ field: 'capacity', operator: 'not_equal', value: ['0'] }],
    node_deduplication_field: 'name', node_group_criteria: null, node_group_layout: null } },
];
const ids: string[] = [];
for (const d of datasets) {
  const created = await call('POST', '/api/v1/dataset/', d, token);
  // Create saves the query; update runs it and stores the results (SPEC: Version rules).
  const updated = await call('PUT', `/api/v1/dataset/id/${created.datasetId}/`, d, token);
  console.log(`dataset ${created.datasetId} v${updated.version}: ${updated.results?.length ?? 0} records, ${d.name}`);
  ids.push(created.datasetId);
}

const map = await call('POST', '/api/v1/map/', {
  name: 'R&E backbone',
  configuration: {
    initialViewStrategy: 'manual',
    viewport: { center: { lat: 46, lng: -40 }, zoom: 3 },
    background: '#eef3f8',
    showLegend: true,
    showSidebar: true,
    showViewControls: true,
    enableScrolling: true,
    layers: [
      { name: 'North America', color: '#1f77b4', edgeWidth: 2, datasetId: ids[0], layout: 'geographic', datatype: 'snapshot', templateId: template.templateId },
      { name: 'Europe and transatlantic', color: '#d62728', edgeWidth: 2, datasetId: ids[1], layout: 'geographic', datatype: 'snapshot' },
      { name: 'Exchange points', color: '#2ca02c', edgeWidth: 1.5, datasetId: ids[2], layout: 'geographic', datatype: 'snapshot' },
    ],
  },
  overrides: {
    [ids[2]]: {
      nodes: {
        'Reykjavik (planned)': { operation: 'add', state: { name: 'Reykjavik (planned)', coordinate: [64.1466, -21.9426], meta: { status: 'planned' } } },
      },
      edges: {},
    },
  },
}, token);
await call('POST', `/api/v1/map/id/${map.mapId}/publish/`, undefined, token);
console.log(`map ${map.mapId} published: /api/v1/public/output/map/${map.mapId}/svg/`);

await store.close();
// The seeding account is not part of the demo: a fresh start creates the real admin.
await rm(scratch, { recursive: true, force: true });
