// Building blocks shared by the request schemas of every resource.
import * as v from 'valibot';

/** IDs are 7 characters of [A-Za-z0-9] (docs/api.md: IDs). */
export const ID_PATTERN = /^[A-Za-z0-9]{7}$/;
export const IdSchema = v.pipe(v.string(), v.regex(ID_PATTERN, 'expected 7 letters or digits'));
/** An ID in a path or an output's `?template=`: one of the wrong shape names no `label` (404 with this message, never a store lookup). */
export const idParamSchema = (label: string) => v.pipe(v.string(), v.regex(ID_PATTERN, `no ${label} with that ID (IDs are 7 letters or digits)`));

export const NameSchema = v.pipe(
  v.string('expected a string'),
  v.trim(),
  v.minLength(1, 'must not be empty'),
  v.maxLength(200, 'must be at most 200 characters'),
);
