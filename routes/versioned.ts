// HTTP plumbing shared by the map, dataset and template routes: path IDs
// (404 before any lookup unless 7 letters or digits), sending cached bodies
// with their ETag (304 on a matching If-None-Match, routes/conditional.ts),
// lists with X-Total-Count, and the editor's name for lastUpdatedBy.
import type { Context } from 'hono';
import { requestHeader } from '../auth/request-header.ts';
import type { AppEnv } from '../auth/types.ts';
import { notFound } from '../errors.ts';
import type { ListPage, Serialized } from '../resources/types.ts';
import { ID_PATTERN } from '../schema/common.ts';
import { notModified } from './conditional.ts';

const JSON_TYPE = 'application/json';

/** The path ID, or 404 when it cannot be an ID (it then never reaches the store). */
export function pathId(c: Context, param: string, label: string): string {
  const id = c.req.param(param) ?? '';
  if (!ID_PATTERN.test(id)) throw notFound(`no ${label} with that ID (IDs are 7 letters or digits)`);
  return id;
}

export function sendView(c: Context, view: Serialized, status: 200 | 201 = 200, headers: Record<string, string> = {}) {
  if (status === 200 && notModified(c, view.etag)) return c.body(null, 304, { ETag: view.etag });
  return c.body(view.body, status, { 'Content-Type': JSON_TYPE, ETag: view.etag, ...headers });
}

export function sendList(c: Context, page: ListPage) {
  return c.body(page.body, 200, { 'Content-Type': JSON_TYPE, 'X-Total-Count': String(page.total) });
}

export const editor = (c: Context<AppEnv>) => c.get('principal').username;

export const ifMatch = (c: Context) => requestHeader(c, 'if-match');
