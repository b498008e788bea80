// Which API scopes a client of the built-in provider may be granted: the
// scopes of its `scope` setting that are configured under auth.scopes.
import type { Settings } from '../../config/settings.ts';
import type { ScopeKind } from '../types.ts';

/** API scopes a configured client may be granted: its `scope` setting, limited to the configured scopes. */
export function clientApiScopes(settings: Settings, clientId: string): string[] {
  const configured = Object.values(settings.auth.scopes as Record<ScopeKind, string>);
  const client = settings.auth.oidc.clients.find((c) => c.client_id === clientId);
  return (client?.scope ?? '').split(/\s+/).filter((s) => configured.includes(s));
}

