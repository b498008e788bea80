// Output (docs/api.md: Output): datasets and maps rendered as topology JSON,
// SVG or PNG, and the picture of a dataset's change. Thin: pick the stored
// version, parse the parameters, hand the output room (output/) the loaders
// and the cache key, send through the output cache with an ETag of the bytes.
// Public map output answers 404 for anything not public now (docs/api.md:
// Public routes), with the same message as for a missing map.
import type { Context } from 'hono';
import * as v from 'valibot';
import type { AppEnv } from '../auth/types.ts';
import { isServiceError, ServiceError } from '../errors.ts';
import { declarer, fails, json, oneVersion, queryParam, rendered, servedAs, svg, type Input, type Operation } from '../http/operation.ts';
import { Dependencies } from '../output/cache.ts';
import { datasetOutputKey, datasetTopology, diffPicture, diffPictureKey } from '../output/dataset.ts';
import { outputLoaders } from '../output/loaders.ts';
import { pictureLoaders } from '../output/picture-limit.ts';
import { configurationOutput, mapJson, mapOutputKey, mapPicture, sizeKey, warned, wholeMapOutput } from '../output/map.ts';
import { mapDiffKey, mapDiffPicture } from '../output/map-diff.ts';
import type { PictureFormat } from '../output/send.ts';
import type { StoredMap } from '../resources/types.ts';
import { ID_PATTERN, idParamSchema } from '../schema/common.ts';
import { DATATYPE_MEANING, DATATYPES, LAYOUTS, MapRevisionSchema } from '../schema/map.ts';
import { HeightParamSchema, WidthParamSchema } from '../schema/picture.ts';
import { diffPair, diffParams } from './history.ts';
import type { RouteDeps } from './index.ts';
import { layerTopologies } from '../output/layers.ts';
import { parseTrafficQuery, rowsAnswer, TRAFFIC_PICTURE, TRAFFIC_QUERY, TRAFFIC_ROWS, versionAt, type Resolved, type TrafficAsked } from './traffic.ts';

const route = declarer<RouteDeps>();

const mapId = { mapId: idParamSchema('map') };
// Anything not public now is the same 404 as a missing map (docs/api.md: Public routes).
const publicMapId = { mapId: v.pipe(v.string(), v.regex(ID_PATTERN, 'no public map with that ID')) };
const datasetId = { datasetId: idParamSchema('dataset') };
const png = rendered({ description: 'PNG picture: the SVG picture of the same route and parameters, rasterized with the shipped font', mediaType: 'image/png' });
const pngTooLarge = fails('validation_failed', 'png: the picture is larger than a PNG may be (output.pngMaxSide a side, output.pngMaxPixels in all); the detail gives its size');
// The output routes' parameters: empty counts as absent, as in a layer's mapjsonUrl (output/layers.ts), which points at these URLs.
/** `?version=` of an output. */
const outputVersion = queryParam({ ...oneVersion, blankIsAbsent: true });
/** The picture routes' size (docs/api.md: Picture size). */
const pictureSize = [
  queryParam({ name: 'width', schema: WidthParamSchema, blankIsAbsent: true }), queryParam({ name: 'height', schema: HeightParamSchema, blankIsAbsent: true }),
];
const choice = <const T extends readonly string[]>(name: string, values: T) => v.picklist(values, `no such output: ${name} must be one of ${values.join(', ')}`);
const OUTPUT_TYPES = ['json', 'svg', 'png'] as const;
const layoutParam = choice('layout', LAYOUTS);
const datatypeParam = v.pipe(choice('datatype', DATATYPES), v.description('snapshot (or static): stored results; dynamic (or live): run the query now'));
const outputTypeParam = v.pipe(choice('output_type', OUTPUT_TYPES), v.description('json: topology; svg: its picture (image/svg+xml); png: that picture rasterized (image/png)'));
/** `?template=`: empty names no template, as editors write it for none. */
const templateParam = queryParam({ name: 'template', schema: v.pipe(idParamSchema('template'), v.description('template ID for node rendering')), blankIsAbsent: true, names: true });
const noResults = fails('not_found', 'no such dataset, version or template');

type Size = { width?: number; height?: number };
const NO_SIZE: Size = Object.freeze({});
/** A picture's size as asked: only the sides given (one shared object when neither is). */
const sizeOf = ({ width, height }: Size): Size =>
  (width === undefined && height === undefined ? NO_SIZE : { ...(width !== undefined ? { width } : {}), ...(height !== undefined ? { height } : {}) });

// The change picture of a dataset (…/diff/{layout}/svg/ and png/) has the shape of the dataset output's
// `{layout}/{datatype}/{output_type}` with `diff` for the layout: Hono's fast router (RegExpRouter) refuses
// two routes that could both match one path, so the dataset output's route serves it (servedBy), and the
// registrar hands that route the change picture's own parameters when the path is one.
/** The loaders of a picture: a dataset past output.pictureCircuits is refused before it is built (output/picture-limit.ts). */
const drawnLoaders = (deps: RouteDeps, read: Dependencies) => pictureLoaders(outputLoaders(deps, read), deps.settings.output.pictureCircuits);

const DATASET_OUTPUT = '/api/v1/output/dataset/{datasetId}/{layout}/{datatype}/{output_type}/';
const changeOf = (format: PictureFormat) => route({
  method: 'get', path: `/api/v1/output/dataset/{datasetId}/diff/{layout}/${format}/`, tag: 'output',
  ...(format === 'svg'
    ? { summary: 'Picture of the change between two versions of a dataset', description: 'Added in green, removed dashed red, changed in amber, unchanged grey, with a legend. Default: the latest version against the one before it.' }
    : { summary: 'Picture of the change between two versions of a dataset, as PNG', description: 'The picture of `…/diff/{layout}/svg/` with the same parameters, rasterized.' }),
  scope: 'read', pathParams: { ...datasetId, layout: layoutParam }, query: [...diffParams, ...pictureSize], effects: ['versions', 'render', 'pool'],
  answers: format === 'svg' ? { 200: svg } : { 200: png, 422: pngTooLarge },
  servedBy: DATASET_OUTPUT,
});
const CHANGE_SVG = changeOf('svg');
const CHANGE_PNG = changeOf('png');

type DatasetOutputParams = { datasetId: string; layout: (typeof LAYOUTS)[number]; datatype: (typeof DATATYPES)[number]; output_type?: (typeof OUTPUT_TYPES)[number] };
type DatasetOutputQuery = { version?: 'latest' | number; template?: string; width?: number; height?: number };

/** The dataset output, with or without its output type, and the change picture its route serves. */
function datasetOutput(deps: RouteDeps) {
  const { send } = deps;
  const change = changePicture(deps);
  return (c: Context<AppEnv>, { params, query, served }: Input<undefined, DatasetOutputParams, DatasetOutputQuery>) => {
    const svgChange = servedAs(CHANGE_SVG, served), pngChange = servedAs(CHANGE_PNG, served);
    if (svgChange) return change(c, 'svg', svgChange.params, svgChange.query);
    if (pngChange) return change(c, 'png', pngChange.params, pngChange.query);
    const { layout } = params;
    const outputType = params.output_type ?? 'json';
    const ask = { id: params.datasetId, version: query.version ?? 'latest', layout, datatype: DATATYPE_MEANING[params.datatype], template: query.template ?? null, size: outputType === 'json' ? {} : sizeOf(query) };
    const key = datasetOutputKey(ask);
    if (outputType === 'json') {
      return send.json(c, key, async (read) => {
        const { topology, warnings } = await datasetTopology(ask, outputLoaders(deps, read));
        return JSON.stringify(warned(topology, warnings));
      });
    }
    return send.picture(c, outputType, key, async (read) =>
      ({ kind: 'topology', topology: (await datasetTopology(ask, drawnLoaders(deps, read))).topology, options: { layout, ...ask.size } }));
  };
}

type ChangeQuery = { from?: number; to?: number } & Size;

/** `GET …/output/dataset/{id}/diff/{layout}/svg/?from=N&to=M` (and png/): the picture of a change; the caller checked the read scope. */
function changePicture({ datasets, store, send, settings }: RouteDeps) {
  return async (c: Context<AppEnv>, format: PictureFormat, params: { datasetId: string; layout: (typeof LAYOUTS)[number] }, query: ChangeQuery) => {
    const resource = params.datasetId, pictureSize = sizeOf(query);
    const { from, to } = await diffPair(datasets.collection, resource, query);
    return send.picture(c, format, diffPictureKey(resource, from, to, params.layout, pictureSize), () => diffPicture(store, from, to, params.layout, pictureSize, settings.output.pictureCircuits));
  };
}

/** `GET …/output/map/{id}/diff/{svg|png}/?from=N&to=M`: the picture of a map's change (output/map-diff.ts). */
const mapChangePicture = (format: PictureFormat) => (deps: RouteDeps) => async (c: Context<AppEnv>, { params, query }: { params: { mapId: string }; query: ChangeQuery }) => {
  const pictureSize = sizeOf(query);
  const { from, to } = await diffPair(deps.maps.collection, params.mapId, query);
  return deps.send.picture(c, format, mapDiffKey(params.mapId, from, to, pictureSize), (read) => mapDiffPicture(from, to, drawnLoaders(deps, read), pictureSize));
};

type VersionAsked = 'latest' | number;
type Found = StoredMap | Promise<StoredMap>;
/** What a map output handler reads of its input: the map's ID and the query. */
type MapInput<Q> = { params: { mapId: string }; query: Q };
type Handler<Q> = (c: Context<AppEnv>, input: MapInput<Q>) => Response | Promise<Response>;
/** Finds the version a map output route asks for: the private routes any map's, the public ones only a public map's. */
type Finder = (deps: RouteDeps) => (id: string, version: VersionAsked) => Found;

const privateMap: Finder = ({ maps }) => (id, version) => (version === 'latest' ? maps.get(id) : maps.at(id, version));
const publicMap: Finder = ({ maps }) => (id, version) => maps.getPublic(id, version);

/** `?at=`: the version current then (routes/traffic.ts versionAt), else the version asked; `scope` is the Cache-Control of a traffic answer. */
interface Access { find: Finder; at: (deps: RouteDeps) => (id: string, at: number) => Promise<StoredMap>; scope: 'private' | 'public' }
const privateAccess: Access = { find: privateMap, at: ({ maps }) => (id, at) => versionAt(maps.collection, id, at, false), scope: 'private' };
// Public now, then among the versions stored public.
const publicAccess: Access = { find: publicMap, scope: 'public',
  at: ({ maps }) => (id, at) => { maps.getPublic(id); return versionAt(maps.collection, id, at, true); } };
const chosen = (a: Access, deps: RouteDeps) => {
  const get = a.find(deps), at = a.at(deps);
  return (id: string, version: VersionAsked, asked: TrafficAsked) => (asked.at === undefined ? get(id, version) : at(id, asked.at));
};
/** A bound map's layers as the traffic routes draw them: the stored version and its layers' topologies. */
const resolved = (deps: RouteDeps, version: StoredMap) => async (): Promise<Resolved> => {
  const { topologies } = await layerTopologies(version, outputLoaders(deps, new Dependencies()));
  return { stored: version, topologies };
};

/** `answer` for the version found, at once when it was found at once. */
const withVersion = (found: Found, answer: (version: StoredMap) => Response | Promise<Response>) =>
  (found instanceof Promise ? found.then(answer) : answer(found));

type OutputQuery = { version?: VersionAsked };
type PictureQuery = OutputQuery & Size & { at?: string; range?: string; stat?: 'max' | 'p95' };

// As Terranova serves them: the bare route answers the configuration, json/ the whole map, svg/ and png/
// its picture. Each route is one handler (the scope check included), and a kept output of the latest
// version answers without a promise: no middleware chain, and @hono/node-server's fast path (a public
// picture on a wall screen is asked for all day).
const mapConfiguration = (find: Finder) => (deps: RouteDeps): Handler<OutputQuery> => {
  const get = find(deps);
  return (c, { params, query }) => withVersion(get(params.mapId, query.version ?? 'latest'), (version) =>
    deps.send.json(c, mapOutputKey(version, 'configuration'), (read) => configurationOutput(version, outputLoaders(deps, read), deps.baseUrl)));
};
const wholeMap = (find: Finder) => (deps: RouteDeps): Handler<OutputQuery> => {
  const get = find(deps);
  return (c, { params, query }) => withVersion(get(params.mapId, query.version ?? 'latest'), (version) =>
    deps.send.json(c, mapOutputKey(version, 'map'), (read) => wholeMapOutput(version, outputLoaders(deps, read), deps.baseUrl)));
};
const mapPictureOf = (access: Access, format: PictureFormat) => (deps: RouteDeps): Handler<PictureQuery> => {
  const find = chosen(access, deps);
  return (c, { params, query }) => {
    const pictureSize = sizeOf(query);
    const asked = query.at || query.range || query.stat ? parseTrafficQuery(query, deps.now().getTime()) : {};
    // A map bound to traffic is drawn with it, kept per step bucket (routes/traffic.ts); any other through the output cache.
    return withVersion(find(params.mapId, query.version ?? 'latest', asked), (version) => (deps.trafficOutput.isBound(version)
      ? deps.trafficOutput.picture(c, format, version, pictureSize, sizeKey(pictureSize), asked, resolved(deps, version), access.scope)
      : deps.send.picture(c, format, mapOutputKey(version, sizeKey(pictureSize)), (read) => mapPicture(version, drawnLoaders(deps, read), pictureSize))));
  };
};
/** `…/traffic/`: a bound map's traffic as rows (docs/traffic.md: Rows). */
const trafficRows = (access: Access) => (deps: RouteDeps): Handler<PictureQuery> => {
  const find = chosen(access, deps);
  return (c, { params, query }) => {
    const asked = parseTrafficQuery(query, deps.now().getTime());
    return withVersion(find(params.mapId, query.version ?? 'latest', asked), (version) => deps.trafficOutput.rows(c, version, asked, resolved(deps, version), access.scope));
  };
};

/** A sheet's file name in an error's detail, as a public answer must not show it. */
const FILE_NAME = /[^\s"'()]+\.(csv|xlsx)\b/gi;
/** A remark in parentheses that names files (`(no x.xlsx or x.csv in the spreadsheet folder)`): dropped whole. */
const FILE_REMARK = /\s*\([^()]*\.(?:csv|xlsx)\b[^()]*\)/gi;

/** Rethrows `e` with the names of sheet files in its detail replaced. */
function hideFileNames(e: unknown): never {
  if (!isServiceError(e) || !e.message.match(FILE_NAME)) throw e;
  throw new ServiceError(e.code, e.message.replace(FILE_REMARK, '').replace(FILE_NAME, 'a sheet'), { errors: e.errors, headers: e.headers });
}

/** A public route's handler: anonymous viewers are not told which files the map is drawn from. */
const withoutFileNames = <Q>(make: (deps: RouteDeps) => Handler<Q>) => (deps: RouteDeps): Handler<Q> => {
  const handler = make(deps);
  return (c, input) => {
    try {
      const answer = handler(c, input);
      return answer instanceof Promise ? answer.catch(hideFileNames) : answer;
    } catch (e) {
      return hideFileNames(e);
    }
  };
};

export const OUTPUT_OPERATIONS: Operation<RouteDeps>[] = [
  CHANGE_SVG,
  CHANGE_PNG,
  route({
    method: 'get', path: DATASET_OUTPUT, tag: 'output', summary: 'Render a dataset as topology JSON, SVG or PNG', scope: 'read',
    pathParams: { ...datasetId, layout: layoutParam, datatype: datatypeParam, output_type: outputTypeParam },
    query: [outputVersion, templateParam, ...pictureSize.map((q) => ({ ...q, description: 'svg and png only' }) as const)],
    effects: ['versions', 'datasource', 'render', 'pool'],
    answers: { 200: rendered(json('topology {name, layer, pathLayout, nodes, edges}, with warnings when a snapshot of a version without stored results ran live; the picture (image/svg+xml, image/png) when output_type is svg or png')), 404: noResults, 422: pngTooLarge },
    handle: datasetOutput,
  }),
  route({
    method: 'get', path: '/api/v1/output/dataset/{datasetId}/{layout}/{datatype}/', tag: 'output', summary: 'A dataset as topology JSON (the URL Terranova\'s editor writes into a layer\'s mapjsonUrl)', scope: 'read',
    pathParams: { ...datasetId, layout: layoutParam, datatype: datatypeParam },
    query: [outputVersion, templateParam],
    effects: ['versions', 'datasource', 'render'],
    answers: { 200: rendered(json('topology {name, layer, pathLayout, nodes, edges}, with warnings when a snapshot of a version without stored results ran live')), 404: noResults },
    handle: datasetOutput,
  }),
  route({ method: 'get', path: '/api/v1/output/map/{mapId}/', tag: 'output', summary: 'Map configuration with its layers resolved into topology', description: 'What the map component\'s "configure from URL" loads: the configuration, `layers` at the top level, each with `mapjson` (a JSON string); Terranova\'s defaults filled in where the stored configuration lacks them.', scope: 'write', pathParams: mapId, query: [outputVersion], effects: ['versions', 'layers'], answers: { 200: rendered(json('the configuration with each layer\'s mapjson filled in')) },
    handle: mapConfiguration(privateMap) }),
  route({ method: 'get', path: '/api/v1/output/map/{mapId}/json/', tag: 'output', summary: 'The whole map with its layers resolved', scope: 'write', pathParams: mapId, query: [outputVersion], effects: ['versions', 'layers'], answers: { 200: rendered(json('the map object (ID, name, version, configuration with each layer\'s mapjson, overrides)')) },
    handle: wholeMap(privateMap) }),
  route({ method: 'get', path: '/api/v1/output/map/{mapId}/svg/', tag: 'output', summary: 'Map as SVG', description: TRAFFIC_PICTURE, scope: 'write', pathParams: mapId, query: [outputVersion, ...pictureSize, ...TRAFFIC_QUERY], effects: ['versions', 'layers', 'pool'], answers: { 200: svg },
    handle: mapPictureOf(privateAccess, 'svg') }),
  route({ method: 'get', path: '/api/v1/output/map/{mapId}/png/', tag: 'output', summary: 'Map as PNG (its SVG rasterized)', description: TRAFFIC_PICTURE, scope: 'write', pathParams: mapId, query: [outputVersion, ...pictureSize, ...TRAFFIC_QUERY], effects: ['versions', 'layers', 'pool'], answers: { 200: png, 422: pngTooLarge },
    handle: mapPictureOf(privateAccess, 'png') }),
  route({ method: 'get', path: '/api/v1/output/map/{mapId}/traffic/', tag: 'output', summary: 'Live traffic of a map\'s bound circuits, as rows', description: TRAFFIC_ROWS, scope: 'read', pathParams: mapId, query: [outputVersion, ...TRAFFIC_QUERY], effects: ['versions', 'layers'], answers: { 200: rowsAnswer },
    handle: trafficRows(privateAccess) }),
  route({ method: 'get', path: '/api/v1/output/map/{mapId}/diff/svg/', tag: 'output', summary: 'Picture of the change between two versions of a map', description: 'Its geographic layers as one network: circuits added in green, removed dashed red, changed in amber, unchanged grey; layers added or removed named in the legend. Default: the latest version against the one before it.', scope: 'read', pathParams: mapId, query: [...diffParams, ...pictureSize], effects: ['versions', 'layers', 'render'], answers: { 200: svg },
    handle: mapChangePicture('svg') }),
  route({ method: 'get', path: '/api/v1/output/map/{mapId}/diff/png/', tag: 'output', summary: 'Picture of the change between two versions of a map, as PNG', description: 'The picture of `…/diff/svg/` with the same parameters, rasterized.', scope: 'read', pathParams: mapId, query: [...diffParams, ...pictureSize], effects: ['versions', 'layers', 'render'], answers: { 200: png, 422: pngTooLarge },
    handle: mapChangePicture('png') }),
  route({ method: 'patch', path: '/api/v1/output/map/', tag: 'output', summary: 'Preview an unsaved map configuration', scope: 'write', body: { name: 'MapRevision', schema: MapRevisionSchema }, effects: ['layers'], answers: { 200: json('normalized map output') },
    // Nothing stored, nothing kept: its reads record into dependencies no one asks for.
    handle: (deps) => async (c, input) => {
      const { map, warnings } = await mapJson(await input.body(), outputLoaders(deps, new Dependencies()), deps.baseUrl);
      return c.json(warned(map, warnings));
    } }),
  route({ method: 'get', path: '/api/v1/public/output/map/{mapId}/', tag: 'public', summary: 'Public map output (only versions stored as public)', scope: null, pathParams: publicMapId, query: [outputVersion], effects: ['versions', 'layers'], answers: { 200: rendered(json('as the authenticated map output, for public maps only')) },
    handle: withoutFileNames(mapConfiguration(publicMap)) }),
  route({ method: 'get', path: '/api/v1/public/output/map/{mapId}/json/', tag: 'public', summary: 'The whole public map with its layers resolved', scope: null, pathParams: publicMapId, query: [outputVersion], effects: ['versions', 'layers'], answers: { 200: rendered(json('as the authenticated json/ output, for public maps only')) },
    handle: withoutFileNames(wholeMap(publicMap)) }),
  route({ method: 'get', path: '/api/v1/public/output/map/{mapId}/svg/', tag: 'public', summary: 'Public map as SVG', description: TRAFFIC_PICTURE, scope: null, pathParams: publicMapId, query: [outputVersion, ...pictureSize, ...TRAFFIC_QUERY], effects: ['versions', 'layers', 'pool'], answers: { 200: svg },
    handle: withoutFileNames(mapPictureOf(publicAccess, 'svg')) }),
  route({ method: 'get', path: '/api/v1/public/output/map/{mapId}/png/', tag: 'public', summary: 'Public map as PNG (its SVG rasterized)', description: TRAFFIC_PICTURE, scope: null, pathParams: publicMapId, query: [outputVersion, ...pictureSize, ...TRAFFIC_QUERY], effects: ['versions', 'layers', 'pool'], answers: { 200: png, 422: pngTooLarge },
    handle: withoutFileNames(mapPictureOf(publicAccess, 'png')) }),
  route({ method: 'get', path: '/api/v1/public/output/map/{mapId}/traffic/', tag: 'public', summary: 'Live traffic of a public map\'s bound circuits, as rows', description: TRAFFIC_ROWS, scope: null, pathParams: publicMapId, query: [outputVersion, ...TRAFFIC_QUERY], effects: ['versions', 'layers'], answers: { 200: rowsAnswer },
    handle: withoutFileNames(trafficRows(publicAccess)) }),
];
