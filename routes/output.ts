// Output (docs/api.md: Output): datasets and maps rendered as topology JSON,
// SVG or PNG. Thin: pick the stored version, hand loaders to render/, send
// through the output cache with an ETag of the bytes (routes/output-send.ts).
// Public map output answers 404 for anything not public now (docs/api.md:
// Public routes), with the same message as for a missing map.
import { Hono, type Context } from 'hono';
import type { Auth } from '../auth/index.ts';
import type { AppEnv } from '../auth/types.ts';
import type { DatasourceRegistry } from '../datasources/types.ts';
import { notFound } from '../errors.ts';
import { resolveMapLayers } from '../map-output/layers.ts';
import { withTerranovaDefaults } from '../map-output/map-defaults.ts';
import { Dependencies } from '../render/output-cache.ts';
import { renderMapSvg, renderTopologySvg } from '../render/svg.ts';
import { buildTopology } from '../render/topology.ts';
import { buildTopologyCached } from '../render/topology-cache.ts';
import type { Datasets } from '../resources/datasets.ts';
import type { Maps } from '../resources/maps.ts';
import type { Templates } from '../resources/templates.ts';
import type { StoredVersion } from '../resources/types.ts';
import { ID_PATTERN } from '../schema/common.ts';
import { MapRevisionSchema, type MapRevision } from '../schema/map.ts';
import { readBody } from './body.ts';
import { parseOutputQuery, parsePictureSize } from './list-query.ts';
import { outputLoaders } from './output-loaders.ts';
import { PICTURE_FORMATS, sizeKey, type OutputSender } from './output-send.ts';
import type { DiffPicture } from './history.ts';
import { pathId } from './versioned.ts';
import { parseTrafficQuery, TRAFFIC_PARAMS, versionAt, type TrafficOutput } from './traffic.ts';

export interface OutputDeps {
  auth: Auth;
  maps: Maps;
  datasets: Datasets;
  templates: Templates;
  datasources: DatasourceRegistry;
  /** Finished outputs kept for repeated requests, and the PNG size limits. */
  send: OutputSender;
  /** server.baseUrl, for the mapjsonUrl that outputs add to datasetId layers. */
  baseUrl?: string;
  /** The picture of a dataset's change, at …/diff/{layout}/svg/ and png/ (routes/history.ts). */
  diff: DiffPicture;
  /** Pictures and rows of maps bound to live traffic (routes/traffic.ts). */
  traffic: TrafficOutput;
  now: () => Date;
}

const LAYOUTS = ['geographic', 'logical'] as const;
// `static` and `live` are Terranova's names (its editor writes them into layers' mapjsonUrl).
const DATATYPES: Record<string, 'snapshot' | 'dynamic'> = { snapshot: 'snapshot', static: 'snapshot', dynamic: 'dynamic', live: 'dynamic' };
const OUTPUT_TYPES = ['json', ...PICTURE_FORMATS] as const;

function pick<T extends string>(c: Context, name: string, allowed: readonly T[]): T {
  const value = c.req.param(name) as T;
  if (!allowed.includes(value)) throw notFound(`no such output: ${name} must be one of ${allowed.join(', ')}`);
  return value;
}

/** `?template=` names no template, as in a layer's mapjsonUrl (map-output/layers.ts): editors write it for none. */
function templateId(raw: string | undefined): string | null {
  if (raw === undefined || raw === '') return null;
  if (!ID_PATTERN.test(raw)) throw notFound('no template with that ID (IDs are 7 letters or digits)');
  return raw;
}

export function outputRoutes(o: OutputDeps) {
  const { auth, maps, send } = o;
  const app = new Hono<AppEnv>({ strict: false });
  const loaders = (deps: Dependencies) => outputLoaders(o, deps);

  // Everything that shapes a dataset output is in its key or read through the loaders (their dependencies):
  // a new parameter that changes the answer must join the key, or requests differing by it would share one output.
  const datasetOutput = async (c: Context) => {
    // …/diff/{layout}/svg/ and png/: the picture of a change (its route shares this one: routes/history.ts).
    const format = c.req.param('output_type');
    if (c.req.param('layout') === 'diff' && (format === 'svg' || format === 'png')) return o.diff(c, c.req.param('datatype'), format);
    const id = pathId(c, 'datasetId', 'dataset');
    const layout = pick(c, 'layout', LAYOUTS);
    const datatype = DATATYPES[pick(c, 'datatype', Object.keys(DATATYPES))];
    const outputType = c.req.param('output_type') === undefined ? 'json' : pick(c, 'output_type', OUTPUT_TYPES);
    const query = parseOutputQuery(c, ['template', 'width', 'height']);
    const template = templateId(query.get('template'));
    const topology = async (deps: Dependencies) => {
      const load = loaders(deps);
      const [input, markup] = await Promise.all([load.dataset(id, query.version, datatype), template ? load.template(template) : null]);
      // Stored results never change, so their topology is built once; live data always anew.
      const build = datatype === 'snapshot' ? buildTopologyCached : buildTopology;
      return build(input.records, { name: input.name, layout, query: input.query, template: markup });
    };
    const size = outputType === 'json' ? {} : parsePictureSize(query.get);
    const key = ['dataset', id, query.version, layout, datatype, template ?? '', sizeKey(size)].join('\n');
    if (outputType === 'json') return send.json(c, key, async (deps) => JSON.stringify(await topology(deps)));
    return send.picture(c, outputType, key, async (deps) => renderTopologySvg(await topology(deps), { layout, ...size }));
  };
  app.get('/api/v1/output/dataset/:datasetId/:layout/:datatype/:output_type', auth.requireScope('read'), datasetOutput);
  // Without an output type: topology JSON, at the URL Terranova's editor writes into a layer's mapjsonUrl.
  app.get('/api/v1/output/dataset/:datasetId/:layout/:datatype', auth.requireScope('read'), datasetOutput);

  // The map with each layer's `mapjson` filled in, its configuration completed with Terranova's defaults.
  const mapOutput = async (version: StoredVersion, deps: Dependencies) => {
    const { change: _c, deleted: _d, ...map } = version;
    const resolved = await resolveMapLayers(map as unknown as MapRevision & StoredVersion, loaders(deps), { baseUrl: o.baseUrl });
    // The picture is drawn from the configuration as stored: the defaults are for clients (a default
    // viewport would frame every map on North America instead of fitting it to its content).
    return { ...resolved, stored: resolved.output, output: { ...resolved.output, configuration: withTerranovaDefaults(resolved.output.configuration) } };
  };
  /** `value` with the warnings of its resolution, when there are any (a layer with no data yet). */
  const warned = (value: object, warnings: string[]) => (warnings.length > 0 ? { ...value, warnings } : value);

  // As Terranova serves them: the bare route answers the configuration (what the map component's
  // "configure from URL" loads), json/ the whole map, svg/ and png/ its picture. A map version never
  // changes, so it keys the output (the public and private routes share it); its layers' datasets,
  // templates and sheets are dependencies. Each route is one handler (the scope check included), and
  // a kept output of the latest version answers without a promise: no middleware chain, and
  // @hono/node-server's fast path (a public picture on a wall screen is asked for all day).
  type VersionAsked = ReturnType<typeof parseOutputQuery>['version'];
  type Found = StoredVersion | Promise<StoredVersion>;
  type Handler = (c: Context<AppEnv>) => Response | Promise<Response>;
  const key = (version: StoredVersion) => `map\n${String(version.mapId)}\n${version.version}`;
  /** `answer` for the version found, at once when it was found at once. */
  const withVersion = (found: Found, answer: (version: StoredVersion) => Response | Promise<Response>) =>
    (found instanceof Promise ? found.then(answer) : answer(found));
  /** `?at=`: the version current then (routes/traffic.ts versionAt); else the version asked. */
  type At = (c: Context, at: number) => Promise<StoredVersion>;
  const mapRoutes = (prefix: string, get: (c: Context, version: VersionAsked) => Found, guard: (handler: Handler) => Handler,
    at: At, readGuard: (handler: Handler) => Handler, cacheScope: string) => {
    const traffic = o.traffic;
    const chosen = (c: Context, version: VersionAsked, asked: { at?: number }) => (asked.at === undefined ? get(c, version) : at(c, asked.at));
    app.get(`${prefix}/:mapId/traffic`, readGuard((c) => {
      const query = parseOutputQuery(c, TRAFFIC_PARAMS);
      const asked = parseTrafficQuery(query.get, o.now().getTime());
      return withVersion(chosen(c, query.version, asked), (version) =>
        traffic.rows(c, version, asked, () => mapOutput(version, new Dependencies()), cacheScope));
    }));
    app.get(`${prefix}/:mapId`, guard((c) => withVersion(get(c, parseOutputQuery(c).version), (version) =>
      send.json(c, `${key(version)}\nconfiguration`, async (deps) => {
        const { output, warnings } = await mapOutput(version, deps);
        return JSON.stringify(warned(output.configuration, warnings));
      }))));
    app.get(`${prefix}/:mapId/json`, guard((c) => withVersion(get(c, parseOutputQuery(c).version), (version) =>
      send.json(c, `${key(version)}\nmap`, async (deps) => {
        const { output, warnings } = await mapOutput(version, deps);
        return JSON.stringify(warned(output, warnings));
      }))));
    for (const format of PICTURE_FORMATS) {
      app.get(`${prefix}/:mapId/${format}`, guard((c) => {
        const query = parseOutputQuery(c, ['width', 'height', ...TRAFFIC_PARAMS]);
        const size = parsePictureSize(query.get);
        const asked = query.get('at') || query.get('range') || query.get('stat') ? parseTrafficQuery(query.get, o.now().getTime()) : {};
        return withVersion(chosen(c, query.version, asked), (version) => traffic.isBound(version)
          ? traffic.picture(c, format, version, size, sizeKey(size), asked, () => mapOutput(version, new Dependencies()), cacheScope)
          : send.picture(c, format, `${key(version)}\n${sizeKey(size)}`, async (deps) => {
            const { stored, topologies } = await mapOutput(version, deps);
            return renderMapSvg(stored as { name?: string }, topologies, size);
          }));
      }));
    }
  };

  mapRoutes('/api/v1/output/map', (c, version) => {
    const id = pathId(c, 'mapId', 'map');
    return version === 'latest' ? maps.get(id) : maps.at(id, version);
  }, (handler) => auth.guard('write', handler),
  (c, at) => versionAt(maps.collection, pathId(c, 'mapId', 'map'), at, false), (handler) => auth.guard('read', handler), 'private');
  const publicId = (c: Context) => {
    const id = c.req.param('mapId') ?? '';
    if (!ID_PATTERN.test(id)) throw notFound('no public map with that ID');
    return id;
  };
  mapRoutes('/api/v1/public/output/map', (c, version) => maps.getPublic(publicId(c), version), (handler) => handler,
    // Public now, then among the versions stored public.
    (c, at) => { const id = publicId(c); maps.getPublic(id); return versionAt(maps.collection, id, at, true); }, (handler) => handler, 'public');

  // Preview of an unsaved MapRevision (the map editor): nothing is stored.
  app.patch('/api/v1/output/map', auth.requireScope('write'), async (c) => {
    const revision = await readBody(c, MapRevisionSchema);
    // Nothing stored, nothing kept: its reads record into dependencies no one asks for.
    const { output, warnings } = await resolveMapLayers(revision, loaders(new Dependencies()), { baseUrl: o.baseUrl });
    return c.json(warned({ ...output, configuration: withTerranovaDefaults(output.configuration) }, warnings));
  });

  return app;
}
