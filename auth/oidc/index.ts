// The OIDC backend (built-in provider and external issuers): not built yet.
import type { Settings } from '../../config/settings.ts';
import type { Logger } from '../../log.ts';
import type { Store } from '../../store/types.ts';
import type { PasswordLogin } from '../login.ts';
import type { VerifyToken } from '../middleware.ts';
import type { UserDirectory } from '../users.ts';

export interface OidcOptions {
  settings: Settings;
  store: Store;
  users: UserDirectory;
  login: PasswordLogin;
  now: () => Date;
  log: Logger;
}

export interface Oidc {
  verify: VerifyToken;
}

export async function createOidc(_o: OidcOptions): Promise<Oidc> {
  throw new Error("auth.backend oidc is not available in this build yet");
}
