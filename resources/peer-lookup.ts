// Read-your-peer's-writes for replicas over a shared store (PostgreSQL): a
// resource created on another replica a moment ago may not have reached this
// one's memory yet (its change notification is still on the way). A request
// that would answer 404 for an ID this replica has never seen asks the
// database first (Store.lookup) and, when the resource is there, runs again.
// Only the 404 path pays for it: a request for a known ID never gets here.
import type { Context } from 'hono';
import { ServiceError } from '../errors.ts';
import type { LogCollection, Store } from '../store/types.ts';

type ErrorHandler = (err: Error, c: Context) => Response | Promise<Response>;
type Fetch = (request: Request, env: unknown) => Response | Promise<Response>;

/** The resource a path names by ID: /api/v1/map/id/{id}/…, /api/v1/output/map/{id}/…, /api/v1/public/output/map/{id}/…, datasets and templates alike. */
const BY_ID = /^\/api\/v1\/(?:public\/)?(?:output\/)?(map|dataset|template)(?:\/id)?\/([A-Za-z0-9]{7})(?:\/|$)/;
const COLLECTIONS: Record<string, LogCollection> = { map: 'maps', dataset: 'datasets', template: 'templates' };

/** Wraps the app's error handler: a 404 for an ID the store finds in the database on a second look runs the request again. */
export function lookupBeforeNotFound(store: Store, fetch: Fetch, handler: ErrorHandler): ErrorHandler {
  const lookup = store.lookup?.bind(store);
  if (!lookup) return handler;
  return async (err, c) => {
    if (err instanceof ServiceError && err.code === 'not_found' && !c.req.raw.bodyUsed) {
      const named = BY_ID.exec(c.req.path);
      // Found in the database now: memory holds it, and the request runs again (once: a second 404 finds memory current).
      if (named && await lookup(COLLECTIONS[named[1]], named[2])) return fetch(c.req.raw, c.env);
    }
    return handler(err, c);
  };
}
