// POST /api/v1/auth/token: the resource-owner password grant (RFC 6749 §4.3)
// of the basic backend, as a form or as JSON. Errors are those of RFC 6749
// §5.2, which OAuth clients read: 400 with `error` (invalid_request,
// invalid_grant, unsupported_grant_type, invalid_scope) and
// `error_description`, beside the service's own `detail` and `code`. A wrong
// username and a wrong password get the same answer in the same time;
// failures are throttled per username and address pair, per username and per
// address (auth/throttle.ts; 429 with Retry-After). With the OIDC backend tokens come from the issuer, and this
// route does not exist.
import * as v from 'valibot';
import type { Auth } from '../auth/index.ts';
import { isServiceError, ServiceError } from '../errors.ts';
import { readBody, validate } from '../http/body.ts';
import { declarer, fails, ok, type Operation } from '../http/operation.ts';
import { TokenRequestSchema } from '../schema/auth.ts';
import { TokenErrorSchema, TokenResponseSchema } from '../schema/objects.ts';

type Deps = { auth: Auth };
const route = declarer<Deps>();

const oauthError = (error: string, description: string, errors?: ServiceError['errors']) =>
  new ServiceError('bad_request', description, { oauth: error, errors });

const AnyFields = v.record(v.string(), v.unknown());

/** A body that cannot be read, or lacks a field, is RFC 6749's invalid_request (a body over the limit stays 413). */
function asInvalidRequest(e: unknown): never {
  if (isServiceError(e) && e.status !== 413) throw oauthError('invalid_request', e.message, e.errors);
  throw e;
}

/** The request's fields: the grant type is judged first, so another grant is unsupported_grant_type whatever it carries. */
async function tokenRequest(c: Parameters<typeof readBody>[0]) {
  const raw = await readBody(c, AnyFields, { form: true }).catch(asInvalidRequest);
  if (raw.grant_type !== undefined && raw.grant_type !== 'password') {
    throw oauthError('unsupported_grant_type', 'grant_type must be password');
  }
  try {
    return validate(TokenRequestSchema, raw);
  } catch (e) {
    return asInvalidRequest(e);
  }
}

// The body is read here, not by the registrar: a form or JSON, every failure answered as RFC 6749's (bodyErrors: none).
export const TOKEN: Operation<Deps> = route({
  method: 'post', path: '/api/v1/auth/token', tag: 'auth', summary: 'Get an access token (password grant, RFC 6749 section 4.3)', scope: null, basicOnly: true,
  body: { name: 'TokenRequest', schema: TokenRequestSchema, form: true }, bodyErrors: [],
  answers: { 200: ok('the token', TokenResponseSchema), 400: { ...ok('an OAuth 2.0 error (RFC 6749 section 5.2), also for a body that cannot be read', TokenErrorSchema), code: 'bad_request' }, 429: { ...fails('rate_limited', 'too many failed logins for this username or address; Retry-After says when to try again'), headers: ['Retry-After'] } },
  handle: ({ auth }) => async (c) => {
    const tokens = auth.tokens;
    if (!tokens) throw new Error('the token route exists only with the basic backend');
    const body = await tokenRequest(c);
    const user = await auth.login.attempt(body.username, body.password, auth.clientAddress(c));
    if (!user) throw oauthError('invalid_grant', 'wrong username or password');
    const requested = body.scope ? [...new Set(body.scope.split(/\s+/).filter(Boolean))] : user.scope;
    const notHeld = requested.filter((s) => !user.scope.includes(s));
    if (notHeld.length) throw oauthError('invalid_scope', `scope not granted to this user: ${notHeld.join(' ')}`);
    c.header('Cache-Control', 'no-store');
    c.header('Pragma', 'no-cache');
    return c.json(await tokens.issue(user, requested));
  },
});
