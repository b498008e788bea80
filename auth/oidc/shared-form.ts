// The built-in provider's short-lived entries in the store's own terms
// (SharedEntry): the payload fields the provider finds entries by become the
// entry's lookup values, under the fields' names, and oidc-provider's
// `consumed` mark becomes the entry's own `consumed`, and back on the way
// out. The store knows nothing of OpenID; this is the one place that maps.
// PostgreSQL's migration 3 moved rows of the earlier form under these names.
import type { AdapterPayload } from 'oidc-provider';
import type { SharedEntry } from '../../store/types.ts';

/** One stored model instance: oidc-provider's payload and when it expires (epoch seconds; absent: never). */
export interface Entry {
  payload: AdapterPayload;
  exp?: number;
}

/** Payload fields entries are found by: findByUid, findByUserCode, revokeByGrantId, and an account's removal. */
export const LOOKUP_FIELDS = ['uid', 'userCode', 'grantId', 'accountId'] as const;
export type LookupField = (typeof LOOKUP_FIELDS)[number];

/** `owner` and `bound`: what anyone can create is bounded per client address (memory-entries.ts boundOf). */
export function toShared(entry: Entry, owner?: string, bound?: SharedEntry['bound']): SharedEntry {
  const { consumed, ...rest } = entry.payload;
  const moved = typeof consumed === 'number';
  const lookup: Record<string, string> = {};
  for (const field of LOOKUP_FIELDS) {
    const value = entry.payload[field];
    if (typeof value === 'string') lookup[field] = value;
  }
  return {
    payload: (moved ? rest : entry.payload) as SharedEntry['payload'],
    ...(entry.exp !== undefined && { exp: entry.exp }),
    lookup,
    ...(moved && { consumed }),
    ...(owner !== undefined && { owner }),
    ...(bound !== undefined && { bound }),
  };
}

export function fromShared(e: SharedEntry | undefined): Entry | undefined {
  if (!e) return undefined;
  const payload = (e.consumed === undefined ? e.payload : { ...e.payload, consumed: e.consumed }) as AdapterPayload;
  return { payload, ...(e.exp !== undefined && { exp: e.exp }) };
}
