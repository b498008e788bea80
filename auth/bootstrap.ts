// First start: with no users at all, create `admin` holding every configured
// scope. The password is MTS_ADMIN_PASSWORD, or a random one printed once;
// there is never a fixed default password. The variable counts on that first
// start only: given later, it is ignored and the log says so and how to reset
// the password. serve() runs this once the service listens, so a start that
// cannot listen (port in use) creates no user and prints no password.
import { isServiceError } from '../errors.ts';
import type { Settings } from '../config/settings.ts';
import type { Logger } from '../log.ts';
import type { Store } from '../store/types.ts';
import { randomPassword } from './passwords.ts';
import { UserDirectory } from './users.ts';

/** The accounts CLI command that sets admin's password (with the service stopped). */
const RESET_ADMIN_PASSWORD = 'npm run accounts -- set-password admin';

/** Local users log in with the basic backend and with the built-in provider; an external issuer has its own. */
export const keepsLocalUsers = (settings: Settings) =>
  settings.auth.backend === 'basic' || settings.auth.oidc.issuer === 'builtin';

export async function bootstrapAdmin(users: UserDirectory, allScopes: string[], password: string | undefined,
  log: Logger, backend: 'basic' | 'oidc' = 'basic') {
  if (users.list().length > 0) {
    if (password) log.info(ignoredPassword(users.find('admin') !== undefined));
    return;
  }
  const chosen = password || randomPassword();
  try {
    await users.create({ username: 'admin', name: 'Administrator', scope: allScopes, password: chosen });
  } catch (e) {
    // Replicas starting together over one database (store.backend: postgres): another created it first.
    if (!(isServiceError(e) && e.code === 'conflict' && users.find('admin'))) throw e;
    log.info('user admin was created by another replica starting at the same time');
    return;
  }
  const change = backend === 'basic'
    ? `PUT /api/v1/user/admin/set_password/ or ${RESET_ADMIN_PASSWORD}`
    : `${RESET_ADMIN_PASSWORD} (with the service stopped)`;
  if (password) log.info('created user admin with the password from MTS_ADMIN_PASSWORD');
  else log.info(`created user admin with password ${chosen} (shown once; change it with ${change})`);
}

const ignoredPassword = (adminExists: boolean) => adminExists
  ? 'MTS_ADMIN_PASSWORD is ignored: it sets the password of admin on the first start only, and admin exists already. ' +
    `To reset admin's password, stop the service and run: ${RESET_ADMIN_PASSWORD}`
  : 'MTS_ADMIN_PASSWORD is ignored: it sets the password of admin, created on the first start only, and this data folder ' +
    'has other users already. Manage accounts with the service stopped: npm run accounts -- list, add, set-password';

/** The first-start admin of the settings' backend: what serve() runs once listening. */
export async function bootstrapAdminOf(settings: Settings, store: Store, password: string | undefined, log: Logger,
  now: () => Date = () => new Date()) {
  if (!keepsLocalUsers(settings)) {
    if (password) log.info(`MTS_ADMIN_PASSWORD is ignored: users log in at the OpenID issuer ${settings.auth.oidc.issuer}`);
    return;
  }
  await bootstrapAdmin(new UserDirectory(store, now), Object.values(settings.auth.scopes), password, log, settings.auth.backend);
}
