// History routes of maps, datasets and templates alike (docs/api.md: History):
// the versions newest first, what changed between two versions, deletion as
// a tombstone version, restore and revert. Thin: parse, call
// resources/history.ts, send. One set of declarations per kind, each path
// from the kind's declaration (routes/maps.ts, datasets.ts, templates.ts).
import * as v from 'valibot';
import { declarer, fails, json, queryParam, version, type Answer, type Operation } from '../http/operation.ts';
import { actingUser, ifMatch, sendList, sendSerialized } from '../http/versioned.ts';
import { diffOf } from '../resources/changes.ts';
import type { VersionedCollection } from '../resources/collection.ts';
import { historyPage, remove, restore, revert, tombstoneView } from '../resources/history.ts';
import { mapsUsing } from '../resources/usage.ts';
import type { StoredVersion } from '../resources/types.ts';
import { documentedAs, integerSchema, LimitParamSchema, OffsetParamSchema, VERSION_NUMBER, VERSION_PAGE } from '../schema/list.ts';
import type { RouteDeps } from './index.ts';
import type { ResourceRoutes } from './resource-routes.ts';

const route = declarer<RouteDeps>();

const versionNumber = v.pipe(v.string(), v.regex(VERSION_NUMBER, 'expected a version number from 1'), v.description('a version number from 1'),
  v.transform(Number), documentedAs(integerSchema(1)));
export const diffParams = [
  queryParam({ name: 'from', schema: versionNumber, description: 'default: the version before `to`' }),
  queryParam({ name: 'to', schema: versionNumber, description: 'default: the latest version' }),
];
export const pageParams = [queryParam({ name: 'limit', schema: LimitParamSchema }), queryParam({ name: 'offset', schema: OffsetParamSchema })];
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
        return (c, { params, query }) => {
          // Paged by default (docs/api.md: Paging): a history of 10,000 versions is not read at once.
          const paging = { offset: query.offset ?? 0, limit: query.limit ?? VERSION_PAGE };
          return sendList(c, historyPage(col, id(params), paging.offset, paging.limit), paging);
        };
      },
    }),
    route({
      method: 'get', path: paths.diff, tag, summary: `What changed between two versions of a ${segment}, by meaning`, scope: 'read', pathParams: idParam, query: diffParams, effects: ['versions'], answers: { 200: json('the changes: {path, op, from, to} items; datasets add nodes and edges added, removed and changed; templates add changed lines'), ...bigDiff },
      handle: (deps) => {
        const col = kind.collection(deps);
        return async (c, { params, query }) => {
          const resource = id(params);
          const { from, to } = await diffPair(col, resource, query);
          // A big dataset diff runs on the render pool, for this caller, and comes back as its JSON's bytes.
          const changes = await diffOf(col.descriptor.collection, deps.store, from, to, (job) => deps.offload(job, c));
          const head = { [col.descriptor.idField]: resource, from: from.version, to: to.version };
          if (!(changes instanceof Uint8Array)) return c.json({ ...head, ...changes });
          return c.body(withFieldsFirst(head, changes), 200, { 'Content-Type': 'application/json' });
        };
      },
    }),
    route({
      method: 'delete', path: paths.object, tag, summary: `Delete a ${segment} (a tombstone version; history and restore remain)`, scope: 'write', pathParams: idParam, effects: ['versions', 'write', 'ifMatch'], answers: { 200: json('the tombstone: ID, version, lastUpdatedBy, lastUpdatedOn, deleted: true'), ...inUse },
      handle: (deps) => {
        const col = kind.collection(deps);
        const using = usedBy(deps);
        return async (c, { params }) => c.json(tombstoneView(col, await remove(col, id(params), actingUser(c), ifMatch(c), using)));
      },
    }),
    route({
      method: 'post', path: paths.restore, tag, summary: `Bring a deleted ${segment} back as a new version`, scope: 'write', pathParams: idParam, effects: ['versions', 'write'], answers: { 200: version('the new version', schema), 409: fails('conflict', `the ${segment} is not deleted`) },
      handle: (deps) => {
        const col = kind.collection(deps);
        return async (c, { params }) => sendSerialized(c, col.serialized(await restore(col, id(params), actingUser(c), rules.onRestore)));
      },
    }),
    route({
      method: 'post', path: paths.revert, tag, summary: `A new version with the content of version N`, scope: 'write', pathParams: idParam, query: [queryParam({ name: 'version', schema: versionNumber, required: true })], effects: ['versions', 'write', 'ifMatch'], answers: { 200: version('the new version', schema) },
      handle: (deps) => {
        const col = kind.collection(deps);
        return async (c, { params, query }) =>
          sendSerialized(c, col.serialized(await revert(col, id(params), actingUser(c), query.version, ifMatch(c), rules.onRevert)));
      },
    }),
  ];
}

/**
 * The bytes of JSON.stringify({ ...head, ...object }) from `object`'s JSON bytes (an object with fields), not
 * parsed: head's fields, then the object's.
 */
function withFieldsFirst(head: object, object: Uint8Array): Uint8Array<ArrayBuffer> {
  const fields = JSON.stringify(head);
  return Buffer.concat([Buffer.from(`${fields.slice(0, -1)},`), object.subarray(1)]);
}

/** `?from=N&to=M`: two versions (tombstones included); default the latest against the one before it. */
export async function diffPair<V extends StoredVersion>(col: VersionedCollection<V>, id: string, asked: { from?: number; to?: number }) {
  const numbers = col.versionNumbers(id);
  const to = asked.to ?? numbers[numbers.length - 1];
  const before = numbers.filter((n) => n < to);
  const from = asked.from ?? before[before.length - 1] ?? to;
  return { from: await col.anyVersion(id, from), to: await col.anyVersion(id, to) };
}
