// The objects the service answers with: the full map, dataset and template
// objects (latest or a given version). Their keys are the valid values of the
// list routes' `fields` parameter, and the OpenAPI document describes the
// responses from them.
import * as v from 'valibot';
import { IdSchema } from './common.ts';
import { QuerySchema } from './dataset.ts';
import { MapRevisionSchema } from './map.ts';
import { TemplateMarkupSchema } from './template.ts';

const Meta = {
  version: v.pipe(v.number(), v.integer(), v.minValue(1), v.description('1 for the first version, then +1 for each change')),
  lastUpdatedBy: v.pipe(v.string(), v.description('username of the editor of this version')),
  lastUpdatedOn: v.pipe(v.string(), v.isoTimestamp(), v.description('when this version was stored, ISO 8601 UTC')),
};

export const MapSchema = v.object({
  mapId: IdSchema,
  name: v.string(),
  ...Meta,
  public: v.pipe(v.boolean(), v.description('true when this version was stored as published')),
  configuration: MapRevisionSchema.entries.configuration,
  overrides: MapRevisionSchema.entries.overrides,
});

const RowProblemSchema = v.object({ sheet: v.string(), row: v.number(), message: v.string() });

export const DatasetSchema = v.object({
  datasetId: IdSchema,
  name: v.string(),
  ...Meta,
  query: QuerySchema,
  results: v.pipe(
    v.nullable(v.array(v.looseObject({}))),
    v.description('records of the query run that made this version ({id, name, source, destination, endpoints, ...}); null when the version has no stored results'),
  ),
  problems: v.pipe(
    v.array(RowProblemSchema),
    v.description('rows of the datasource that could not be used in that run; empty when none or when there are no results'),
  ),
  problemCount: v.optional(v.pipe(
    v.number(),
    v.description('present only when the datasource listed fewer problems than it found: the total'),
  )),
});

export const TemplateSchema = v.object({
  templateId: IdSchema,
  name: v.string(),
  ...Meta,
  template: TemplateMarkupSchema,
});

export const MAP_FIELDS = Object.keys(MapSchema.entries);
export const DATASET_FIELDS = Object.keys(DatasetSchema.entries);
export const TEMPLATE_FIELDS = Object.keys(TemplateSchema.entries);


/** Every error answer (docs/api.md: Errors). */
export const ErrorSchema = v.object({
  detail: v.pipe(v.string(), v.description('what went wrong, as a sentence')),
  code: v.pipe(v.string(), v.description('stable error code, e.g. not_found, validation_failed')),
  errors: v.optional(v.pipe(
    v.array(v.object({ path: v.string(), message: v.string() })),
    v.description('for validation errors: each bad field by its dotted path'),
  )),
  traceId: v.optional(v.pipe(v.string(), v.description('500 only: the ID under which the failure was logged'))),
});

/** One entry of GET /api/v1/datasources/ (datasources/types.ts DatasourceListing). */
export const DatasourceListingSchema = v.looseObject({
  name: v.string(),
  description: v.string(),
  context: v.pipe(v.record(v.string(), v.string()), v.description('for a spreadsheet: sheet_id and sheet_name')),
});

/** A user as the user routes answer (never a password or a hash). */
export const UserSchema = v.looseObject({
  username: v.string(),
  name: v.optional(v.string()),
  email: v.optional(v.string()),
  scope: v.array(v.string()),
});

/** The token endpoint's answer (RFC 6749 section 5.1). */
export const TokenResponseSchema = v.object({
  access_token: v.string(),
  token_type: v.literal('Bearer'),
  expires_in: v.number(),
  scope: v.pipe(v.string(), v.description('space-separated scopes the token carries')),
});

/** The token endpoint's error answer (RFC 6749 section 5.2), beside the service's own detail and code. */
export const TokenErrorSchema = v.object({
  error: v.picklist(['invalid_request', 'invalid_grant', 'unsupported_grant_type', 'invalid_scope']),
  error_description: v.string(),
  detail: v.string(),
  code: v.string(),
});
