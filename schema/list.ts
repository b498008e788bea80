// Query parameters of the list and get-by-ID endpoints. The routes parse with
// these schemas and the OpenAPI document is generated from them, so the two
// cannot drift apart. Values arrive as strings (URL query).
import * as v from 'valibot';

/** A version number as a query parameter writes it. */
export const VERSION_NUMBER = /^[1-9][0-9]{0,8}$/;

/** The largest count or version number a parameter takes (nine digits). */
const MAX_PARAM_NUMBER = 999_999_999;

/**
 * How the OpenAPI document types a parameter, in place of converting its
 * pipe (routes/openapi.ts). Query values arrive as text that these pipes turn
 * into numbers, so the document gives the number they stand for (`type:
 * integer` with its bounds) rather than a string with a pattern. Parsing is
 * unchanged: valibot skips metadata when it runs a pipe.
 */
export const documentedAs = <TInput>(jsonSchema: Record<string, unknown>) =>
  v.metadata<TInput, { readonly jsonSchema: Record<string, unknown> }>({ jsonSchema });

/** A whole number from `minimum` to `maximum`, as JSON Schema writes it. */
export const integerSchema = (minimum: number, maximum = MAX_PARAM_NUMBER) => ({ type: 'integer', minimum, maximum });

/** `latest` (default), `all`, or a version number >= 1. */
export const VersionParamSchema = v.pipe(
  v.string(),
  v.description('latest (the default), all, or a version number from 1'),
  v.union(
    [v.picklist(['latest', 'all']), v.pipe(v.string(), v.regex(VERSION_NUMBER))],
    'expected latest, all or a version number from 1',
  ),
  v.transform((s): 'latest' | 'all' | number => (s === 'latest' || s === 'all' ? s : Number(s))),
  documentedAs({ anyOf: [{ type: 'string', enum: ['latest', 'all'] }, integerSchema(1)] }),
);

/** Get-by-ID takes one version: `latest` (default) or a number; `all` is a list's job. */
export const OneVersionParamSchema = v.pipe(
  v.string(),
  v.description('latest (the default) or a version number from 1'),
  v.union(
    [v.literal('latest'), v.pipe(v.string(), v.regex(VERSION_NUMBER))],
    'expected latest or a version number from 1 (for every version use the list with version=all)',
  ),
  v.transform((s): 'latest' | number => (s === 'latest' ? s : Number(s))),
  documentedAs({ anyOf: [{ type: 'string', enum: ['latest'] }, integerSchema(1)] }),
);

const count = (what: string) =>
  v.pipe(
    v.string(),
    v.description(what),
    v.regex(/^[0-9]{1,9}$/, 'expected a whole number from 0'),
    v.transform(Number),
    documentedAs(integerSchema(0)),
  );
/** The page of a version list or history when no limit is given (docs/api.md: Paging). */
export const VERSION_PAGE = 100;

export const LimitParamSchema = count(`largest number of items to return (default: all latest versions; ${VERSION_PAGE} versions of a version list or history, with a Link to the next page)`);
export const OffsetParamSchema = count('number of matching items to skip (default 0)');

export const BooleanParamSchema = v.pipe(
  v.string(),
  v.picklist(['true', 'false'], 'expected true or false'),
  v.transform((s) => s === 'true'),
);

export const StringFilterSchema = v.pipe(v.string(), v.maxLength(1000, 'must be at most 1000 characters'));

/** The `fields` parameter: names of the resource's fields, repeated or comma-separated. */
export const fieldsParamSchema = (fields: readonly string[]) =>
  v.pipe(
    v.string(),
    v.description(`fields to include, repeated (fields=a&fields=b) or comma-separated (fields=a,b); one of ${fields.join(', ')}`),
    v.picklist(fields, `unknown field; valid fields are ${fields.join(', ')}`),
  );

/**
 * The `sort` parameter: a field to order by, `-` in front for descending
 * (`+` or nothing for ascending), as [field, direction].
 */
export const sortParamSchema = (fields: readonly string[]) =>
  v.pipe(
    v.string(),
    v.description(`a field to order by, "-" in front for descending (e.g. -lastUpdatedOn); repeat or comma-separate for more keys; one of ${fields.join(', ')}`),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      const descending = dataset.value.startsWith('-');
      const name = descending || dataset.value.startsWith('+') ? dataset.value.slice(1) : dataset.value;
      if (!fields.includes(name)) {
        addIssue({ message: `unknown field; valid fields are ${fields.join(', ')}` });
        return NEVER;
      }
      return [name, descending ? -1 : 1] as const;
    }),
  );
