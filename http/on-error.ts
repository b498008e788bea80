// The one place errors become HTTP responses. ServiceError kinds show their
// message as `detail`; anything unexpected is a 500 with a trace ID that is
// logged beside the stack, and the stack is never sent.
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { ServiceError } from '../errors.ts';
import { type Logger, traceIdOf } from '../log.ts';

export function errorHandler(log: Logger) {
  return (err: Error, c: Context) => {
    if (err instanceof ServiceError) {
      const body: Record<string, unknown> = { detail: err.message, code: err.code };
      if (err.errors) body.errors = err.errors;
      // RFC 6749 5.2: error_description is printable ASCII without " or \.
      if (err.oauth) Object.assign(body, { error: err.oauth, error_description: err.message.replace(/["\\]/g, "'").replace(/[^\x20-\x7e]/g, '?') });
      return c.json(body, err.status as 400, err.headers);
    }
    if (err instanceof HTTPException && err.status < 500) {
      const code = err.status === 413 ? 'payload_too_large' : 'bad_request';
      const detail = err.status === 413 ? 'request body is too large' : err.message || 'bad request';
      return c.json({ detail, code }, err.status);
    }
    // The request's own trace ID, which its log line carries too.
    const traceId = traceIdOf(c.req.raw);
    log.error('internal error', { traceId, method: c.req.method, path: c.req.path, stack: err?.stack ?? String(err) });
    return c.json({ detail: `internal error; trace ID ${traceId}`, code: 'internal', traceId }, 500);
  };
}

export const notFoundHandler = (c: Context) =>
  c.json({ detail: `no such route: ${c.req.method} ${c.req.path}`, code: 'not_found' }, 404);
