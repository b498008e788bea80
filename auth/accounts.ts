// Account management rules shared by the user routes and the accounts
// command line: scopes must be configured ones, passwords long enough, and
// the last holder of the admin scope can be neither deleted nor demoted, so
// an install cannot lock itself out.
import { conflict, notFound, validationFailed } from '../errors.ts';
import { USERNAME_PATTERN, type UserCreate, type UserUpdate } from '../schema/users.ts';
import type { ScopeKind } from './types.ts';
import { toPublic, type StoredUser, type UserDirectory } from './users.ts';

export class Accounts {
  private readonly allowed: string[];

  constructor(readonly users: UserDirectory, private scopes: Record<ScopeKind, string>) {
    this.allowed = Object.values(scopes);
  }

  /** Users in username order; the total comes along for X-Total-Count. */
  list(offset = 0, limit = Infinity) {
    const all = [...this.users.list()].sort((a, b) => (a.username < b.username ? -1 : a.username > b.username ? 1 : 0));
    return { total: all.length, users: all.slice(offset, offset + limit).map(toPublic) };
  }

  /** A user by name; a name that cannot exist is simply not found (it never reaches the store). */
  get(username: string) {
    const user = USERNAME_PATTERN.test(username) ? this.users.find(username) : undefined;
    if (!user) throw notFound(`no user ${JSON.stringify(username)}`);
    return user;
  }

  async create(input: UserCreate) {
    this.checkScopes(input.scope);
    return toPublic(await this.users.create(input));
  }

  async update(username: string, patch: Omit<UserUpdate, 'password'>) {
    this.get(username);
    if (patch.username !== undefined && patch.username !== username) {
      throw validationFailed('renaming a user is not supported: body username must match the path',
        [{ path: 'username', message: `expected ${JSON.stringify(username)}` }]);
    }
    if (patch.scope) this.checkScopes(patch.scope);
    const change: Partial<Pick<StoredUser, 'name' | 'email' | 'scope'>> = {};
    if (patch.name !== undefined) change.name = patch.name;
    if (patch.email !== undefined) change.email = patch.email;
    if (patch.scope !== undefined) change.scope = [...new Set(patch.scope)];
    return toPublic(await this.users.update(username, change, (next, before) => this.keepAnAdmin(next, before)));
  }

  async setPassword(username: string, password: string) {
    this.get(username);
    return toPublic(await this.users.setPassword(username, password));
  }

  async remove(username: string) {
    this.get(username);
    await this.users.remove(username, (next, before) => this.keepAnAdmin(next, before));
  }

  private checkScopes(scope: string[]) {
    const errors = scope.flatMap((s, i) => (this.allowed.includes(s) ? [] : [{
      path: `scope.${i}`,
      message: `${JSON.stringify(s)} is not a configured scope; expected one of ${this.allowed.join(', ')}`,
    }]));
    if (errors.length) throw validationFailed(`unknown scope: ${errors[0].message}`, errors);
  }

  /** Runs inside the store's serialized update, so two concurrent demotions cannot both pass. */
  private keepAnAdmin(next: StoredUser[], before: StoredUser[]) {
    const hasAdmin = (users: StoredUser[]) => users.some((u) => u.scope.includes(this.scopes.admin));
    if (hasAdmin(before) && !hasAdmin(next)) {
      throw conflict(`refused: no user would be left with the ${this.scopes.admin} scope`);
    }
  }
}
