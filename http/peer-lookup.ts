// Read-your-peer's-writes for replicas over a shared store (PostgreSQL): a
// resource created on another replica a moment ago may not have reached this
// one's memory yet (its change notification is still on the way). An
// operation whose path names a map, dataset or template by ID asks the
// database first (Store.lookup) when memory has never heard of that ID, then
// runs once. Known IDs, the data folder and every other path pay nothing: the
// route stays one synchronous handler.
import type { Context } from 'hono';
import type { AppEnv } from '../auth/types.ts';
import type { LogCollection, Store } from '../store/types.ts';

type Route = (c: Context<AppEnv>) => Response | Promise<Response>;

/** What the lookup asks of the store: the entries memory knows, and a read of one log from the database. */
export type Peers = Pick<Store, 'versions' | 'lookup'>;

/** A declared path naming a resource by ID: /api/v1/map/id/{mapId}/…, /api/v1/output/map/{mapId}/…, /api/v1/public/output/map/{mapId}/…, datasets and templates alike. */
const BY_ID = /^\/api\/v1\/(?:public\/)?(?:output\/)?(map|dataset|template)(?:\/id)?\/\{(\w+)\}(?:\/|$)/;
const COLLECTIONS: Record<string, LogCollection> = { map: 'maps', dataset: 'datasets', template: 'templates' };
/** Only an ID of the shape the service hands out is worth a database round trip. */
const ID_SHAPE = /^[A-Za-z0-9]{7}$/;

/** `route`, preceded by a database lookup of the ID its path names when memory does not know it; `route` itself for any other path or store. */
export function lookupUnknownIds(path: string, peers: Peers | undefined, route: Route): Route {
  const named = BY_ID.exec(path);
  const lookup = peers?.lookup?.bind(peers);
  if (!named || !peers || !lookup) return route;
  const collection = COLLECTIONS[named[1]];
  const param = named[2];
  return (c) => {
    const id = c.req.param(param) ?? '';
    if (!ID_SHAPE.test(id) || peers.versions(collection, id).length > 0) return route(c);
    // Whatever the database says, the route answers from memory once: found, memory now holds it; not found (or out of reach), 404.
    return lookup(collection, id).then(() => route(c), () => route(c));
  };
}
