// History routes of maps, datasets and templates alike (docs/api.md: History):
// the versions newest first, what changed between two versions, deletion as
// a tombstone version, restore and revert. Thin: parse, call
// resources/history.ts, send. One set of declarations per kind, each path
// from the kind's declaration (routes/maps.ts, datasets.ts, templates.ts).
import type { Context } from 'hono';
import * as v from 'valibot';
import { badRequest } from '../errors.ts';
import { params, parseParam } from '../http/list-query.ts';
import { declarer, fails, json, oneVersion, version, type Answer, type Operation, type QueryParam } from '../http/operation.ts';
import { actingUser, ifMatch, sendList, sendSerialized } from '../http/versioned.ts';
import { diffOf } from '../resources/changes.ts';
import type { VersionedCollection } from '../resources/collection.ts';
import { historyPage, remove, restore, revert, tombstoneView } from '../resources/history.ts';
import { mapsUsing } from '../resources/usage.ts';
import { documentedAs, integerSchema, LimitParamSchema, OffsetParamSchema, OneVersionParamSchema, VERSION_NUMBER, VERSION_PAGE } from '../schema/list.ts';
import type { RouteDeps } from './index.ts';
import type { ResourceRoutes } from './resource-routes.ts';

const route = declarer<RouteDeps>();

const VersionNumber = v.pipe(OneVersionParamSchema, v.number('expected a version number from 1'));
const versionNumber = v.pipe(v.string(), v.regex(VERSION_NUMBER), v.description('a version number from 1'), documentedAs(integerSchema(1)));
export const diffParams: QueryParam[] = [
  { name: 'from', schema: versionNumber, description: 'default: the version before `to`' },
  { name: 'to', schema: versionNumber, description: 'default: the latest version' },
];
export const pageParams: QueryParam[] = [{ name: 'limit', schema: LimitParamSchema }, { name: 'offset', schema: OffsetParamSchema }];
const HistoryItemSchema = v.object({
  version: v.pipe(v.number(), v.integer(), v.minValue(1)), lastUpdatedBy: v.string(), lastUpdatedOn: v.string(),
  public: v.optional(v.boolean()), deleted: v.optional(v.literal(true)), summary: v.string(),
});

/** History, diff, delete, restore and revert of one kind of resource, with the kind's rules. */
export function historyOperations(kind: ResourceRoutes): Operation<RouteDeps>[] {
  const { segment, tag, idParam, paths, id, history: rules, object: { schema } } = kind;
  const inUse: Record<number, Answer> = segment === 'map' ? {} : { 409: fails('conflict', `the ${segment} is used by a map that is not deleted; the detail names the maps`) };
  // A big dataset diff runs on the render pool (resources/changes.ts), whose queue may be full for the caller.
  const bigDiff: Record<number, Answer> = segment === 'dataset'
    ? { 503: { ...fails('resource_unavailable', 'a big diff runs on the render pool: its queue is full for this caller, or the diff waited its whole time budget for a thread; try again after Retry-After seconds'), headers: ['Retry-After'] } }
    : {};
  const usedBy = (deps: RouteDeps) => rules.usedBy && ((resource: string) => mapsUsing(deps.maps.collection, rules.usedBy!, resource));
  return [
    route({
      method: 'get', path: paths.history, tag, summary: `Versions of a ${segment}, newest first`, description: 'Deleted resources keep their history.', scope: 'read', pathParams: idParam, query: pageParams, effects: ['versions'], answers: { 200: { description: 'versions with who, when and a summary of the change', schema: HistoryItemSchema, list: true, headers: ['X-Total-Count', 'Link'] } },
      handle: (deps) => {
        const col = kind.collection(deps);
        return (c) => {
          const resource = id(c);
          const { once } = params(c, ['limit', 'offset']);
          const limit = once('limit'), offset = once('offset');
          // Paged by default (docs/api.md: Paging): a history of 10,000 versions is not read at once.
          const paging = { offset: offset === undefined ? 0 : parseParam(OffsetParamSchema, 'offset', offset),
            limit: limit === undefined ? VERSION_PAGE : parseParam(LimitParamSchema, 'limit', limit) };
          return sendList(c, historyPage(col, resource, paging.offset, paging.limit), paging);
        };
      },
    }),
    route({
      method: 'get', path: paths.diff, tag, summary: `What changed between two versions of a ${segment}, by meaning`, scope: 'read', pathParams: idParam, query: diffParams, effects: ['versions'], answers: { 200: json('the changes: {path, op, from, to} items; datasets add nodes and edges added, removed and changed; templates add changed lines'), ...bigDiff },
      handle: (deps) => {
        const col = kind.collection(deps);
        return async (c) => {
          const resource = id(c);
          const { from, to } = await diffPair(c, col, resource);
          // A big dataset diff runs on the render pool, for this caller.
          const changes = await diffOf(col.descriptor.collection, deps.store, from, to,
            async (before, after) => JSON.parse(String(await deps.offload({ kind: 'datasetDiff', before, after }, c))));
          return c.json({ [col.descriptor.idField]: resource, from: from.version, to: to.version, ...changes });
        };
      },
    }),
    route({
      method: 'delete', path: paths.object, tag, summary: `Delete a ${segment} (a tombstone version; history and restore remain)`, scope: 'write', pathParams: idParam, effects: ['versions', 'write', 'ifMatch'], answers: { 200: json('the tombstone: ID, version, lastUpdatedBy, lastUpdatedOn, deleted: true'), ...inUse },
      handle: (deps) => {
        const col = kind.collection(deps);
        const using = usedBy(deps);
        return async (c) => c.json(tombstoneView(col, await remove(col, id(c), actingUser(c), ifMatch(c), using)));
      },
    }),
    route({
      method: 'post', path: paths.restore, tag, summary: `Bring a deleted ${segment} back as a new version`, scope: 'write', pathParams: idParam, effects: ['versions', 'write'], answers: { 200: version('the new version', schema), 409: fails('conflict', `the ${segment} is not deleted`) },
      handle: (deps) => {
        const col = kind.collection(deps);
        return async (c) => sendSerialized(c, col.serialized(await restore(col, id(c), actingUser(c), rules.onRestore)));
      },
    }),
    route({
      method: 'post', path: paths.revert, tag, summary: `A new version with the content of version N`, scope: 'write', pathParams: idParam, query: [{ ...oneVersion, schema: versionNumber, required: true }], effects: ['versions', 'write', 'ifMatch'], answers: { 200: version('the new version', schema) },
      handle: (deps) => {
        const col = kind.collection(deps);
        return async (c) => {
          const resource = id(c);
          const raw = params(c, ['version']).once('version');
          if (raw === undefined) throw badRequest('revert needs ?version=N, the version whose content to bring back', [{ path: 'version', message: 'required' }]);
          const n = parseParam(VersionNumber, 'version', raw);
          return sendSerialized(c, col.serialized(await revert(col, resource, actingUser(c), n, ifMatch(c), rules.onRevert)));
        };
      },
    }),
  ];
}

/** `?from=N&to=M`: two versions (tombstones included); default the latest against the one before it. */
export async function diffPair(c: Context, col: VersionedCollection, id: string) {
  const { once } = params(c, ['from', 'to']);
  const numbers = col.versionNumbers(id);
  const rawTo = once('to'), rawFrom = once('from');
  const to = rawTo === undefined ? numbers[numbers.length - 1] : parseParam(VersionNumber, 'to', rawTo);
  const before = numbers.filter((n) => n < to);
  const from = rawFrom === undefined ? before[before.length - 1] ?? to : parseParam(VersionNumber, 'from', rawFrom);
  return { from: await col.anyVersion(id, from), to: await col.anyVersion(id, to) };
}
