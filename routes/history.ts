// History routes of maps, datasets and templates alike (docs/api.md: History):
// the versions newest first, what changed between two versions, deletion as
// a tombstone version, restore and revert. Thin: parse, call
// resources/history.ts, send. One sub-app per kind, built from this one factory.
import { Hono, type Context } from 'hono';
import type { Auth } from '../auth/index.ts';
import type { AppEnv } from '../auth/types.ts';
import type { VersionedCollection } from '../resources/collection.ts';
import { historyPage, remove, restore, revert, tombstoneView } from '../resources/history.ts';
import type { StoredVersion } from '../resources/types.ts';
import type { Content } from '../resources/collection.ts';
import { badRequest, notFound } from '../errors.ts';
import { buildTopologyCached } from '../render/topology-cache.ts';
import { datasetSide } from '../resources/changes.ts';
import type { Store } from '../store/types.ts';
import { LimitParamSchema, VERSION_PAGE, OffsetParamSchema, OneVersionParamSchema } from '../schema/list.ts';
import { parseParam, parsePictureSize, params } from './list-query.ts';
import { actingUser, ifMatch, pathId, sendList, sendSerialized } from './versioned.ts';
import { sizeKey, type OutputSender, type PictureFormat } from './output-send.ts';
import * as v from 'valibot';

export interface HistoryDeps {
  auth: Auth;
  /** Singular path segment: map, dataset, template. */
  segment: string;
  collection: VersionedCollection;
  /** Live maps using a resource (deleting it is then 409). */
  usedBy?: (id: string) => string[];
  /** What changed between two versions, by meaning. */
  diff: (id: string, from: StoredVersion, to: StoredVersion, c: Context) => Promise<object> | object;
  /** Content adjustments: a restored map is unpublished, a reverted one keeps its public flag. */
  onRestore?: (content: Content) => Content;
  onRevert?: (content: Content, latest: StoredVersion) => Content;
}

const VersionNumber = v.pipe(OneVersionParamSchema, v.number('expected a version number from 1'));

export function historyRoutes(o: HistoryDeps) {
  const { auth, collection: col } = o;
  const app = new Hono<AppEnv>({ strict: false });
  const base = `/api/v1/${o.segment}/id/:${col.descriptor.idField}`;
  const id = (c: Context) => pathId(c, col.descriptor.idField, col.descriptor.label);

  app.get(`${base}/history`, auth.requireScope('read'), async (c) => {
    const resource = id(c);
    const { once } = params(c, ['limit', 'offset']);
    const limit = once('limit'), offset = once('offset');
    // Paged by default (docs/api.md: Paging): a history of 10,000 versions is not read at once.
    const paging = { offset: offset === undefined ? 0 : parseParam(OffsetParamSchema, 'offset', offset),
      limit: limit === undefined ? VERSION_PAGE : parseParam(LimitParamSchema, 'limit', limit) };
    return sendList(c, historyPage(col, resource, paging.offset, paging.limit), paging);
  });

  app.get(`${base}/diff`, auth.requireScope('read'), async (c) => {
    const resource = id(c);
    const { from, to } = await diffPair(c, col, resource);
    return c.json({ [col.descriptor.idField]: resource, from: from.version, to: to.version, ...(await o.diff(resource, from, to, c)) });
  });

  app.delete(base, auth.requireScope('write'), async (c) => {
    const tombstone = await remove(col, id(c), actingUser(c), ifMatch(c), o.usedBy);
    return c.json(tombstoneView(col, tombstone));
  });

  app.post(`${base}/restore`, auth.requireScope('write'), async (c) =>
    sendSerialized(c, col.serialized(await restore(col, id(c), actingUser(c), o.onRestore))));

  app.post(`${base}/revert`, auth.requireScope('write'), async (c) => {
    const resource = id(c);
    const { once } = params(c, ['version']);
    const raw = once('version');
    if (raw === undefined) throw badRequest('revert needs ?version=N, the version whose content to bring back', [{ path: 'version', message: 'required' }]);
    const n = parseParam(VersionNumber, 'version', raw);
    return sendSerialized(c, col.serialized(await revert(col, resource, actingUser(c), n, ifMatch(c), o.onRevert)));
  });

  return app;
}

/** `?from=N&to=M`: two versions (tombstones included); default the latest against the one before it. */
async function diffPair(c: Context, col: VersionedCollection, id: string) {
  const { once } = params(c, ['from', 'to']);
  const numbers = col.versionNumbers(id);
  const rawTo = once('to'), rawFrom = once('from');
  const to = rawTo === undefined ? numbers[numbers.length - 1] : parseParam(VersionNumber, 'to', rawTo);
  const before = numbers.filter((n) => n < to);
  const from = rawFrom === undefined ? before[before.length - 1] ?? to : parseParam(VersionNumber, 'from', rawFrom);
  return { from: await col.anyVersion(id, from), to: await col.anyVersion(id, to) };
}

/**
 * `GET /api/v1/output/dataset/{id}/diff/{layout}/svg/?from=N&to=M` (and
 * `png/`, the same picture rasterized): the picture of a change (added
 * green, removed dashed red, changed amber). Both versions are stored for
 * good, so their numbers key the cached picture. Not a route of its own: its
 * path has the shape of the dataset output's `:layout/:datatype/:output_type`
 * with `diff` for the layout, and Hono's fast router (RegExpRouter) refuses
 * two routes that could both match one path, so the dataset output route
 * hands such requests here (routes/output.ts); the caller checks the read scope.
 */
export function diffPicture(o: { datasets: VersionedCollection; store: Store; send: OutputSender }) {
  return async (c: Context, layout: string | undefined, format: PictureFormat) => {
    const resource = pathId(c, 'datasetId', 'dataset');
    if (layout !== 'geographic' && layout !== 'logical') throw notFound('no such output: layout must be one of geographic, logical');
    const size = parsePictureSize(params(c, ['width', 'height']).once);
    const { from, to } = await diffPair(c, o.datasets, resource);
    const topology = async (v: StoredVersion) => {
      const side = await datasetSide(o.store, v);
      return buildTopologyCached(side.records ?? [], { name: side.name, layout, query: (side.query ?? undefined) as never, template: null });
    };
    return o.send.picture(c, format, ['diff', resource, from.version, to.version, layout, sizeKey(size)].join('\n'), async () => {
      const [before, after] = await Promise.all([topology(from), topology(to)]);
      return { kind: 'diff', before, after, options: { layout, ...size } };
    });
  };
}

export type DiffPicture = ReturnType<typeof diffPicture>;
