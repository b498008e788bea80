// Request bodies of the token endpoint.
import * as v from 'valibot';

const Field = v.pipe(v.string('expected a string'), v.minLength(1, 'must not be empty'), v.maxLength(1024));

export const TokenRequestSchema = v.object({
  grant_type: v.literal('password', 'expected password'),
  username: Field,
  password: Field,
  scope: v.optional(v.pipe(v.string(), v.maxLength(1024))),
});
