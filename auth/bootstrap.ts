// First start: with no users at all, create `admin` holding every configured
// scope. The password is MTS_ADMIN_PASSWORD, or a random one printed once;
// there is never a fixed default password.
import type { Logger } from '../log.ts';
import { randomPassword } from './passwords.ts';
import type { UserDirectory } from './users.ts';

export async function bootstrapAdmin(users: UserDirectory, allScopes: string[], password: string | undefined,
  log: Logger, backend: 'basic' | 'oidc' = 'basic') {
  if (users.list().length > 0) return;
  const chosen = password || randomPassword();
  await users.create({ username: 'admin', name: 'Administrator', scope: allScopes, password: chosen });
  const change = backend === 'basic'
    ? 'PUT /api/v1/user/admin/set_password/ or npm run accounts -- set-password admin'
    : 'npm run accounts -- set-password admin (with the service stopped)';
  if (password) log.info('created user admin with the password from MTS_ADMIN_PASSWORD');
  else log.info(`created user admin with password ${chosen} (shown once; change it with ${change})`);
}
