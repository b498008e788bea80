// The routes of one versioned resource (docs/api.md: Maps, Datasets,
// Templates), from the resource's declaration: list, get by ID, create
// (201 + Location) and update (200, the new version), each an operation
// declaration with its handler (http/operation.ts), plus the resource's own
// operations (a map's publish and unpublish); its history routes are
// routes/history.ts's. Thin: parse, call the resource
// (resources/versioned-resource.ts), send with the ETag; a write's answer
// adds the resource's `warnings` when there are any.
import type * as v from 'valibot';
import { listQuery, type ListSpec } from '../http/list-query.ts';
import {
  created, declarer, listed, listParams, oneVersion, version, type Effect, type Operation,
} from '../http/operation.ts';
import { actingUser, ifMatch, sendList, sendVersion, sendWritten } from '../http/versioned.ts';
import type { Content, VersionedCollection } from '../resources/collection.ts';
import type { ResourceDescriptor, StoredVersion } from '../resources/types.ts';
import type { VersionedResource } from '../resources/versioned-resource.ts';
import { idParamSchema } from '../schema/common.ts';
import type { RouteDeps } from './index.ts';

/** A resource's paths, each written out so that a search for the path finds its declaration. */
interface ResourcePathNames {
  /** GET: the list (/api/v1/<plural>/). */
  list: string;
  /** POST: create (/api/v1/<segment>/). */
  create: string;
  /** GET, PUT, DELETE: one resource (/api/v1/<segment>/id/{<idField>}/). */
  object: string;
  /** The history routes' paths (routes/history.ts). */
  history: string;
  diff: string;
  restore: string;
  revert: string;
}

/** What differs between maps, datasets and templates; everything else is the same for all three. */
export interface ResourceRoutesDeclaration<R, V extends StoredVersion = StoredVersion> {
  /** The singular path segment: /api/v1/<segment>/id/{<idField>}/. */
  segment: 'map' | 'dataset' | 'template';
  paths: ResourcePathNames;
  descriptor: ResourceDescriptor;
  /** List filters beyond the ID, the name and lastUpdatedBy, which every resource has: field name -> value type. */
  moreFilters?: ListSpec['filters'];
  /** The create and update body: its component name and schema. */
  revision: { name: string; schema: v.GenericSchema<unknown, R> };
  /** The object a GET answers (its component is the segment capitalized; the list item's is that plus ListItem). */
  object: v.GenericSchema;
  /** The resource these routes serve. */
  resource: (deps: RouteDeps) => VersionedResource<R, V>;
  /** What the summaries call one resource (default: the segment). */
  noun?: string;
  /** Summaries (and the update's description and answer) where docs/api.md words them otherwise than "List maps", "Get a map"… */
  text?: Partial<Record<'list' | 'get' | 'create' | 'update' | 'updateDescription' | 'updated', string>>;
  /** Effects of an update beyond reading, writing and If-Match (a dataset runs its query). */
  updateEffects?: Effect[];
  /** What a create or update answer adds as `warnings` (they belong to the answer, not the stored version). */
  warnings?: (revision: R) => string[];
  /** What an update answer adds besides, from the version it replaced (content the update drops). */
  updateWarnings?: (revision: R, replaced: V) => string[];
  /** The resource's own operations, declared with their handlers. */
  more?: (paths: ResourcePaths) => Operation<RouteDeps>[];
  /** Checks of a create or update body that need more than its schema (a map's traffic bindings against its datasets): throws to refuse it. */
  check?: (revision: R, deps: RouteDeps) => Promise<void>;
  /** History rules: maps that still use a resource make its deletion 409; content adjustments of restore and revert. */
  history?: {
    usedBy?: 'dataset' | 'template';
    onRestore?: (content: Content) => Content;
    onRevert?: (content: Content, latest: StoredVersion) => Content;
  };
}

/** A resource's paths, for the operations it declares itself. */
export interface ResourcePaths {
  /** The OpenAPI tag, also the plural the list route is named by (/api/v1/<tag>/). */
  tag: string;
  /** The ID path parameter (the registrar answers 404 for one that cannot be an ID). */
  idParam: Readonly<Record<string, ReturnType<typeof idParamSchema>>>;
  /** The object path: /api/v1/<segment>/id/{<idField>}/. */
  objectPath: string;
  /** The path ID among a request's parsed path parameters. */
  id: (params: Readonly<Record<string, string>>) => string;
  paths: ResourcePathNames;
}

/** A declared resource's routes with what is derived from it: the same object serves the router, the OpenAPI document and the tests. */
export interface ResourceRoutes extends ResourcePaths {
  segment: ResourceRoutesDeclaration<unknown>['segment'];
  /** The object a GET answers, and its component name. */
  object: { name: string; schema: v.GenericSchema };
  /** The list item schema (the object with every field optional); referenced by identity for its component name. */
  item: v.GenericSchema;
  /** List, get, create and update, then the resource's own operations. */
  operations: readonly Operation<RouteDeps>[];
  /** History, diff, delete, restore and revert (routes/history.ts) take their rules from here. */
  history: NonNullable<ResourceRoutesDeclaration<unknown>['history']>;
  /** The resource's versions, for its history routes. */
  collection: (deps: RouteDeps) => VersionedCollection;
}

const route = declarer<RouteDeps>();

export function resourceRoutes<R, V extends StoredVersion = StoredVersion>(declared: ResourceRoutesDeclaration<R, V>, item: v.GenericSchema): ResourceRoutes {
  const { segment, descriptor } = declared;
  const tag = `${segment}s`;
  const paths: ResourcePaths = {
    tag,
    idParam: { [descriptor.idField]: idParamSchema(descriptor.label) },
    objectPath: declared.paths.object,
    id: (params) => params[descriptor.idField],
    paths: declared.paths,
  };
  const operations = resourceOperations(declared, paths, item);
  const history = declared.history ?? {};
  return {
    ...paths, segment, object: { name: segment[0].toUpperCase() + segment.slice(1), schema: declared.object }, item, operations, history,
    collection: (deps) => declared.resource(deps).collection,
  };
}

/** List, get, create and update of a resource, then its own operations: the declarations the router and the document share. */
function resourceOperations<R, V extends StoredVersion>(declared: ResourceRoutesDeclaration<R, V>, paths: ResourcePaths, item: v.GenericSchema): Operation<RouteDeps>[] {
  const { segment, descriptor } = declared;
  const { tag } = paths;
  const noun = declared.noun ?? segment;
  const text = {
    list: `List ${noun}s`, get: `Get a ${noun}`, create: `Create a ${noun}`, update: `Save a new version of a ${noun}`, ...declared.text,
  };
  const object = declared.object;
  const filters = { [descriptor.idField]: 'string', name: 'string', lastUpdatedBy: 'string', ...declared.moreFilters } as const;
  const list: ListSpec = { resource: descriptor, filters };
  const body = { name: declared.revision.name, schema: declared.revision.schema };
  const warnings = (revision: R) => declared.warnings?.(revision) ?? [];
  return [
    route({
      method: 'get', path: declared.paths.list, tag, summary: text.list, scope: 'read', query: listParams(list), effects: ['versions'],
      answers: { 200: listed(tag, item) },
      handle: (deps) => {
        const resource = declared.resource(deps);
        return (c, input) => {
          const query = listQuery(list, input.query);
          return sendList(c, resource.list(query), query);
        };
      },
    }),
    route({
      method: 'get', path: paths.objectPath, tag, summary: text.get, scope: 'read', pathParams: paths.idParam, query: [oneVersion], effects: ['versions'],
      answers: { 200: version(`the full ${segment} object`, object) },
      handle: (deps) => {
        const resource = declared.resource(deps);
        return (c, { params, query }) => sendVersion(c, resource.collection, paths.id(params), query.version ?? 'latest');
      },
    }),
    route({
      method: 'post', path: declared.paths.create, tag, summary: text.create, scope: 'write', body, effects: ['write'],
      answers: { 201: created(segment, object) },
      handle: (deps) => {
        const resource = declared.resource(deps);
        return async (c, input) => {
          const revision = await input.body();
          await declared.check?.(revision, deps);
          const stored = await resource.create(actingUser(c), revision);
          return sendWritten(c, resource.serialized(stored), 201, warnings(revision),
            { Location: `${deps.baseUrl}/api/v1/${segment}/id/${String(stored[descriptor.idField])}/` });
        };
      },
    }),
    route({
      method: 'put', path: paths.objectPath, tag, summary: text.update, ...(text.updateDescription ? { description: text.updateDescription } : {}),
      scope: 'write', pathParams: paths.idParam, body, effects: ['versions', 'write', 'ifMatch', ...(declared.updateEffects ?? [])],
      answers: { 200: version(text.updated ?? 'the new version', object) },
      handle: (deps) => {
        const resource = declared.resource(deps);
        return async (c, input) => {
          const id = paths.id(input.params);
          const previous = resource.get(id); // an unknown resource: 404 before reading the body
          const revision = await input.body();
          await declared.check?.(revision, deps);
          const stored = await resource.update(id, actingUser(c), revision, ifMatch(c), previous);
          // Compared with the version it replaced, when that is the one seen before (no other write came between).
          const replaced = stored.version === previous.version + 1 ? previous : undefined;
          const dropped = replaced && declared.updateWarnings ? declared.updateWarnings(revision, replaced) : [];
          return sendWritten(c, resource.serialized(stored), 200, [...warnings(revision), ...dropped]);
        };
      },
    }),
    ...(declared.more?.(paths) ?? []),
  ];
}
