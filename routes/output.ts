// Output (docs/api.md: Output): datasets and maps rendered as topology JSON or SVG.
// Thin: pick the stored version, hand loaders to render/, send with an ETag of
// the bytes (routes/conditional.ts). Public map output answers 404 for anything
// not public now (docs/api.md: Public routes), with the same message as for a missing map.
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import type { Auth } from '../auth/index.ts';
import type { AppEnv } from '../auth/types.ts';
import type { DatasourceRegistry } from '../datasources/types.ts';
import { notFound } from '../errors.ts';
import { resolveMapLayers, type LayerLoaders } from '../render/layers.ts';
import { withTerranovaDefaults } from '../render/map-defaults.ts';
import { renderMapSvg, renderTopologySvg, SVG_RESPONSE_HEADERS } from '../render/svg.ts';
import { buildTopology } from '../render/topology.ts';
import { buildTopologyCached } from '../render/topology-cache.ts';
import type { Datasets } from '../resources/datasets.ts';
import type { Maps } from '../resources/maps.ts';
import type { Templates } from '../resources/templates.ts';
import type { StoredVersion } from '../resources/types.ts';
import { ID_PATTERN } from '../schema/common.ts';
import { MapRevisionSchema, type MapRevision } from '../schema/map.ts';
import { readBody } from './body.ts';
import { etagOf, sendRendered } from './conditional.ts';
import { parseOutputQuery, parsePictureSize } from './list-query.ts';
import { pathId } from './versioned.ts';

export interface OutputDeps {
  auth: Auth;
  maps: Maps;
  datasets: Datasets;
  templates: Templates;
  datasources: DatasourceRegistry;
  /** server.baseUrl, for the mapjsonUrl that outputs add to datasetId layers. */
  baseUrl?: string;
}

const LAYOUTS = ['geographic', 'logical'] as const;
// `static` and `live` are Terranova's names (its editor writes them into layers' mapjsonUrl).
const DATATYPES: Record<string, 'snapshot' | 'dynamic'> = { snapshot: 'snapshot', static: 'snapshot', dynamic: 'dynamic', live: 'dynamic' };
const OUTPUT_TYPES = ['json', 'svg'] as const;
// As c.json() would send it.
const JSON_HEADERS = { 'Content-Type': 'application/json' };
const frozenBodies = new WeakMap<object, { body: string; etag: string }>();

function pick<T extends string>(c: Context, name: string, allowed: readonly T[]): T {
  const value = c.req.param(name) as T;
  if (!allowed.includes(value)) throw notFound(`no such output: ${name} must be one of ${allowed.join(', ')}`);
  return value;
}

/** `?template=` names no template, as in a layer's mapjsonUrl (render/layers.ts): editors write it for none. */
function templateId(raw: string | undefined): string | null {
  if (raw === undefined || raw === '') return null;
  if (!ID_PATTERN.test(raw)) throw notFound('no template with that ID (IDs are 7 letters or digits)');
  return raw;
}

export function outputRoutes(o: OutputDeps) {
  const { auth, maps, datasets, templates, datasources } = o;
  const app = new Hono<AppEnv>({ strict: false });

  const loaders: LayerLoaders = {
    async dataset(id, version, datatype) {
      const stored = await datasets.at(id, version);
      const query = datasets.query(stored);
      const name = String(stored.name);
      if (datatype === 'dynamic') return { name, query, records: (await datasources.run(query)).records };
      const results = await datasets.results(id, stored.version);
      if (!results) {
        throw notFound(`dataset ${id} version ${stored.version} has no stored results ` +
          '(a dataset update stores them; a dataset only created has none yet; or ask for dynamic output)');
      }
      return { name, query, records: results.records };
    },
    async template(id) {
      return String(templates.get(id).template);
    },
  };

  const json = (c: Context, value: object) => {
    // A cached snapshot topology (render/topology-cache.ts) is deep-frozen and
    // shared while it stays cached: its body and ETag are worked out once.
    let sent = frozenBodies.get(value);
    if (!sent) {
      const body = JSON.stringify(value);
      sent = { body, etag: etagOf(body) };
      if (Object.isFrozen(value)) frozenBodies.set(value, sent);
    }
    return sendRendered(c, sent.body, JSON_HEADERS, sent.etag);
  };
  const svg = (c: Context, body: string) => sendRendered(c, body, SVG_RESPONSE_HEADERS);

  const datasetOutput = async (c: Context) => {
    const id = pathId(c, 'datasetId', 'dataset');
    const layout = pick(c, 'layout', LAYOUTS);
    const datatype = DATATYPES[pick(c, 'datatype', Object.keys(DATATYPES))];
    const outputType = c.req.param('output_type') === undefined ? 'json' : pick(c, 'output_type', OUTPUT_TYPES);
    const query = parseOutputQuery(c, ['template', 'width', 'height']);
    const template = templateId(query.get('template'));
    const size = outputType === 'svg' ? parsePictureSize(query.get) : {};
    const [input, markup] = await Promise.all([
      loaders.dataset(id, query.version, datatype),
      template ? loaders.template(template) : null,
    ]);
    // Stored results never change, so their topology is built once; live data always anew.
    const build = datatype === 'snapshot' ? buildTopologyCached : buildTopology;
    const topology = await build(input.records, { name: input.name, layout, query: input.query, template: markup });
    return outputType === 'json' ? json(c, topology) : svg(c, renderTopologySvg(topology, { layout, ...size }));
  };
  app.get('/api/v1/output/dataset/:datasetId/:layout/:datatype/:output_type', auth.requireScope('read'), datasetOutput);
  // Without an output type: topology JSON, at the URL Terranova's editor writes into a layer's mapjsonUrl.
  app.get('/api/v1/output/dataset/:datasetId/:layout/:datatype', auth.requireScope('read'), datasetOutput);

  // The map with each layer's `mapjson` filled in, its configuration completed with Terranova's defaults.
  const mapOutput = async (version: StoredVersion) => {
    const { change: _c, deleted: _d, ...map } = version;
    const resolved = await resolveMapLayers(map as unknown as MapRevision & StoredVersion, loaders, { baseUrl: o.baseUrl });
    // The picture is drawn from the configuration as stored: the defaults are for clients (a default
    // viewport would frame every map on North America instead of fitting it to its content).
    return { ...resolved, stored: resolved.output, output: { ...resolved.output, configuration: withTerranovaDefaults(resolved.output.configuration) } };
  };
  /** `value` with the warnings of its resolution, when there are any (a layer with no data yet). */
  const warned = (value: object, warnings: string[]) => (warnings.length > 0 ? { ...value, warnings } : value);

  const open: MiddlewareHandler<AppEnv> = (_c, next) => next();
  // As Terranova serves them: the bare route answers the configuration (what the map component's
  // "configure from URL" loads), json/ the whole map, svg/ its picture.
  const mapRoutes = (prefix: string, get: (c: Context) => Promise<StoredVersion>, guard: MiddlewareHandler<AppEnv>) => {
    app.get(`${prefix}/:mapId`, guard, async (c) => {
      const { output, warnings } = await mapOutput(await get(c));
      return json(c, warned(output.configuration, warnings));
    });
    app.get(`${prefix}/:mapId/json`, guard, async (c) => {
      const { output, warnings } = await mapOutput(await get(c));
      return json(c, warned(output, warnings));
    });
    app.get(`${prefix}/:mapId/svg`, guard, async (c) => {
      const size = parsePictureSize(parseOutputQuery(c, ['width', 'height']).get);
      const { stored, topologies } = await mapOutput(await get(c));
      return svg(c, renderMapSvg(stored as { name?: string }, topologies, size));
    });
  };

  mapRoutes('/api/v1/output/map', (c) => maps.at(pathId(c, 'mapId', 'map'), parseOutputQuery(c).version), auth.requireScope('write'));
  mapRoutes('/api/v1/public/output/map', (c) => {
    const id = c.req.param('mapId') ?? '';
    if (!ID_PATTERN.test(id)) throw notFound('no public map with that ID');
    return maps.getPublic(id, parseOutputQuery(c).version);
  }, open);

  // Preview of an unsaved MapRevision (the map editor): nothing is stored.
  app.patch('/api/v1/output/map', auth.requireScope('write'), async (c) => {
    const revision = await readBody(c, MapRevisionSchema);
    const { output, warnings } = await resolveMapLayers(revision, loaders, { baseUrl: o.baseUrl });
    return c.json(warned({ ...output, configuration: withTerranovaDefaults(output.configuration) }, warnings));
  });

  return app;
}
