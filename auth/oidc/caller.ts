// Who the built-in provider is working for: the client address of the request
// it handles, carried through oidc-provider's own code (which calls the
// adapter without the request) so its short-lived entries can be bounded per
// address (memory-entries.ts); `showing` while the login form is drawn for an
// interaction, which keeps that interaction from eviction by others' starts.
import { AsyncLocalStorage } from 'node:async_hooks';

export const oidcCaller = new AsyncLocalStorage<{ address: string; showing?: boolean }>();
