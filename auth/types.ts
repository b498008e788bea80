// Who is calling, and the Hono environment every sub-app shares.

/** The four permissions (docs/api.md: Scopes); their scope strings come from settings.auth.scopes. */
export type ScopeKind = 'read' | 'write' | 'publish' | 'admin';

export interface Principal {
  username: string;
  /** Scope strings the current request may use (never more than the user has now). */
  scopes: string[];
  name?: string;
  email?: string;
}

export type AppEnv = {
  Variables: {
    principal: Principal;
  };
};
