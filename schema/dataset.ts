// DatasetRevision: the request body of dataset create and update, and the
// query it carries (docs/api.md: The query).
import * as v from 'valibot';
import { belongIn, revisionSchema } from './revision.ts';
import { NameSchema } from './common.ts';

export const FILTER_OPERATORS = ['equal', 'not_equal', 'like', 'not_like'] as const;
const GROUP_LAYOUTS = ['circle', 'grid'] as const;
/** Directions of a layered logical drawing: layers top to bottom, or left to right. */
const LAYER_DIRECTIONS = ['down', 'right'] as const;
/** Values a role order may list (core, distribution, aggregation, access... is already long). */
const MAX_ROLES = 20;

const FieldName = v.pipe(v.string('expected a string'), v.minLength(1, 'must not be empty'), v.maxLength(200));

const FilterSchema = v.strictObject({
  /** A row column, or `endpoints.<column>` to match either endpoint. */
  field: FieldName,
  /**
   * `""` and null mean equal. `""` is kept as sent: it is what Terranova's
   * editor offers ("Is Exactly") and the only form of equal its menu shows.
   */
  operator: v.pipe(
    v.optional(v.nullable(v.picklist([...FILTER_OPERATORS, ''], 'expected equal, not_equal, like or not_like')), 'equal'),
    v.transform((op) => (op === '' ? '' : (op ?? 'equal')) as (typeof FILTER_OPERATORS)[number] | ''),
  ),
  /** Values OR together; a single string is taken as a list of one. */
  value: v.pipe(
    v.union([v.string(), v.array(v.string('expected a string'))], 'expected a list of strings'),
    v.transform((x) => (Array.isArray(x) ? x : [x])),
  ),
});

/** Levels of node groups a query may ask for (a site, a metro, a region... is already deep). */
const MAX_GROUP_LEVELS = 8;

export const QuerySchema = v.strictObject({
  /** `spreadsheet?sheet_id=…&sheet_name=…` as listed by GET /api/v1/datasources/. */
  endpoint: v.pipe(v.string('expected a string'), v.minLength(1, 'must not be empty'), v.maxLength(1000)),
  filters: v.optional(v.array(FilterSchema), []),
  /** Circuit-end field whose equal values make one node (default: name). */
  node_deduplication_field: v.optional(v.nullable(FieldName), null),
  /** Circuit-end field names, outermost first; null means no grouping. Each level nests groups in groups. */
  node_group_criteria: v.optional(
    v.nullable(v.pipe(
      v.union([FieldName, v.array(FieldName)], 'expected null or a list of field names'),
      v.transform((x) => (Array.isArray(x) ? x : [x])),
      v.maxLength(MAX_GROUP_LEVELS, `expected at most ${MAX_GROUP_LEVELS} grouping fields`),
      v.check((x) => new Set(x).size === x.length, 'expected each grouping field once'),
    )),
    null,
  ),
  node_group_layout: v.optional(v.nullable(v.picklist(GROUP_LAYOUTS, 'expected null, circle or grid')), null),
  /**
   * A hierarchy for the logical layout (docs/api.md: The query): the circuit-end field whose value is a
   * router's role, its values in layer order (first on top), and the direction of the layers. Any of them
   * makes the drawing layered; without them a tree is layered and other graphs are not. Optional keys, absent
   * from datasets saved before them.
   */
  role_field: v.optional(v.nullable(FieldName)),
  role_order: v.optional(v.nullable(v.pipe(
    v.array(v.pipe(v.string('expected a string'), v.minLength(1, 'must not be empty'), v.maxLength(200)), 'expected a list of role values'),
    v.maxLength(MAX_ROLES, `expected at most ${MAX_ROLES} role values`),
    v.check((x) => new Set(x).size === x.length, 'expected each role value once'),
  ))),
  layer_direction: v.optional(v.nullable(v.picklist(LAYER_DIRECTIONS, 'expected null, down or right'))),
  /** The query's own names for the sheet's columns: field -> header (`{source: "Site A", destination: "Site B"}`). */
  columns: v.optional(v.pipe(v.record(FieldName, FieldName, 'expected {field: "header", …}'),
    v.check((m) => Object.keys(m).length <= 50, 'expected at most 50 columns'))),
});

// The dataset object as GET returned it is accepted (ID, results and problems ignored: an update runs the query anew).
export const DatasetRevisionSchema = revisionSchema({
  name: NameSchema,
  query: v.pipe(QuerySchema, v.check((q) => q.role_order == null || q.role_field != null, 'role_order needs a role_field whose values it orders')),
}, ['datasetId', 'results', 'problems', 'problemCount'], belongIn('query', Object.keys(QuerySchema.entries)));

export type Filter = v.InferOutput<typeof FilterSchema>;
export type DatasetQuery = v.InferOutput<typeof QuerySchema>;
export type DatasetRevision = v.InferOutput<typeof DatasetRevisionSchema>;
