// Reading and validating request input at the edge. Malformed JSON, or JSON
// nested deeper than MAX_JSON_DEPTH, is 400; a well-formed body that fails its
// schema is 422 with one entry per bad field.
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import * as v from 'valibot';
import { badRequest, isServiceError, ServiceError, validationFailed, type FieldProblem } from '../errors.ts';
import { MAX_JSON_DEPTH, tooDeepUnder } from '../schema/json-depth.ts';

/**
 * JSON.parse reviver: keys that name prototypes (`__proto__`, `constructor`,
 * `prototype`) are dropped at every depth, so no later merge or assignment of
 * a body (even of keys kept as sent) can reach a prototype.
 */
const dropPrototypeKeys = (key: string, value: unknown) =>
  key === '__proto__' || key === 'constructor' || key === 'prototype' ? undefined : value;

/**
 * Text in which no key can name a prototype: none of those words appears, and
 * no \u escape could spell one. Most bodies are such text, and parsing them
 * without the reviver (which calls back for every key) is several times faster.
 */
const PROTOTYPE_WORDS = /proto|constructor|\\u/;

const issuesToProblems = (issues: v.BaseIssue<unknown>[]): FieldProblem[] =>
  issues.map((issue) => ({ path: v.getDotPath(issue) ?? '', message: issue.message }));

/** Validates a value against a schema; 422 naming every bad field. */
export function validate<S extends v.GenericSchema>(schema: S, value: unknown, what = 'request body'): v.InferOutput<S> {
  const result = v.safeParse(schema, value);
  if (result.success) return result.output;
  const errors = issuesToProblems(result.issues);
  const first = errors[0];
  throw validationFailed(`invalid ${what}: ${first.path || '(root)'}: ${first.message}`, errors);
}

/** Connections whose request did not arrive within server.requestTimeoutSeconds (marked by server.ts). */
const timedOut = new WeakSet<object>();

/** server.ts, on Node's request timeout: the body still being read on this connection will never arrive in full. */
export const markRequestTimedOut = (socket: object) => void timedOut.add(socket);

/**
 * A body read that failed because the connection broke while the body was still
 * arriving: the request timeout (which has already answered 408 and closed it)
 * or a client that went away. That is the client's doing, not a 500 with a
 * logged stack; the answer goes nowhere, it only ends the handler. Any other
 * failure is returned as it is.
 */
function brokenBody(c: Context, e: unknown): unknown {
  const incoming = (c.env as { incoming?: { socket?: object | null; complete?: boolean } } | undefined)?.incoming;
  const socket = incoming?.socket;
  if (socket && timedOut.has(socket)) {
    return new ServiceError('request_timeout', 'the request body did not arrive within the time limit (server.requestTimeoutSeconds)', { cause: e });
  }
  if (incoming && !incoming.complete) return badRequest('the connection closed before the request body arrived in full');
  return e;
}

/** The body as text; a broken connection is 408 or 400 as above. For routes that parse bodies themselves. */
async function readBodyText(c: Context): Promise<string> {
  try {
    return await c.req.text();
  } catch (e) {
    throw brokenBody(c, e);
  }
}

/** Parses the JSON (or, when allowed, form-encoded) body and validates it. */
export async function readBody<S extends v.GenericSchema>(c: Context, schema: S, options: { form?: boolean } = {}) {
  const type = (c.req.header('content-type') ?? '').split(';')[0].trim().toLowerCase();
  let raw: unknown;
  if (options.form && type === 'application/x-www-form-urlencoded') {
    raw = Object.fromEntries(new URLSearchParams(await readBodyText(c)));
  } else if (type === 'application/json' || type === '' || type.endsWith('+json')) {
    const text = await readBodyText(c);
    if (!text.trim()) throw badRequest('request body is empty; send a JSON object');
    try {
      raw = PROTOTYPE_WORDS.test(text) ? JSON.parse(text, dropPrototypeKeys) : JSON.parse(text);
    } catch (e) {
      throw badRequest(`request body is not valid JSON: ${(e as Error).message}`);
    }
    const under = tooDeepUnder(raw);
    if (under !== undefined) {
      throw badRequest(`request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep` +
        (under ? ` (under ${JSON.stringify(under.slice(0, 100))})` : ''));
    }
  } else {
    throw new ServiceError('unsupported_media_type',
      `unsupported Content-Type ${JSON.stringify(type)}; send application/json${options.form ? ' or application/x-www-form-urlencoded' : ''}`);
  }
  return validate(schema, raw);
}

/**
 * 413 for a body over `maxBytes`. A declared Content-Length is checked from
 * the headers alone (Node's parser never delivers more than it declares), so
 * the handler can read the body straight from the socket: touching
 * `c.req.raw.body` would make @hono/node-server build a web stream. A body of
 * unknown length (chunked) is counted as it arrives by Hono's bodyLimit.
 */
export function bodySizeLimit(maxBytes: number): MiddlewareHandler {
  const tooLarge = () => {
    throw new ServiceError('payload_too_large', `request body is over the limit of ${maxBytes} bytes`);
  };
  const counting = bodyLimit({ maxSize: maxBytes, onError: tooLarge });
  return async (c, next) => {
    const declared = c.req.header('content-length');
    if (declared === undefined || c.req.header('transfer-encoding') !== undefined) {
      // Hono's bodyLimit reads the whole body before calling next: a failure before that is the read's.
      let read = false;
      try {
        return await counting(c, () => {
          read = true;
          return next();
        });
      } catch (e) {
        throw read || isServiceError(e) ? e : brokenBody(c, e);
      }
    }
    if (!/^\d+$/.test(declared.trim())) throw badRequest(`Content-Length ${JSON.stringify(declared)} is not a number`);
    if (Number(declared) > maxBytes) tooLarge();
    await next();
  };
}
