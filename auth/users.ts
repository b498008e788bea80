// Local user accounts, kept in the private part of the data folder as one
// document (`private/users.json`). Nothing outside auth/ sees password hashes.
import { conflict, notFound } from '../errors.ts';
import type { Store } from '../store/types.ts';
import { randomBytes } from 'node:crypto';
import { hashPassword, PASSWORD_COST } from './passwords.ts';

export interface StoredUser {
  /** Random per account: a user deleted and created again under the same name does not inherit old tokens. */
  id: string;
  username: string;
  name: string;
  email: string;
  scope: string[];
  passwordHash: string;
  /** Raised on every password change; tokens carry it, so older tokens stop working. */
  passwordVersion: number;
  createdOn: string;
}

export type PublicUser = Pick<StoredUser, 'username' | 'name' | 'email' | 'scope'>;

/** Checked inside the serialized write with the users after and before it; throws to refuse. */
type Guard = (next: StoredUser[], before: StoredUser[]) => void;

interface UsersDoc {
  users: StoredUser[];
}

const KEY = 'users';
const NO_USERS: readonly StoredUser[] = Object.freeze([]);

export const toPublic = ({ username, name, email, scope }: StoredUser): PublicUser => ({ username, name, email, scope });

export class UserDirectory {
  private credentialListeners: Array<(userId: string) => void> = [];

  /** `passwordCost`: scrypt's log2 N for new hashes (passwords.ts; lower only in tests). */
  constructor(private store: Store, private now: () => Date, readonly passwordCost = PASSWORD_COST) {}

  /** Called with an account's id after its password changed or it was deleted through this directory. */
  onCredentialsChange(listener: (userId: string) => void) {
    this.credentialListeners.push(listener);
  }

  private credentialsChanged(ids: string[]) {
    for (const id of ids) for (const listener of this.credentialListeners) listener(id);
  }

  /** Users by name, per stored users array: every request with a token looks its user up. */
  private byName = new WeakMap<readonly StoredUser[], Map<string, StoredUser>>();

  private all(): StoredUser[] {
    return this.store.get<UsersDoc>('private', KEY)?.users ?? (NO_USERS as StoredUser[]);
  }

  list(): StoredUser[] {
    return this.all();
  }

  find(username: string): StoredUser | undefined {
    // The store replaces the document on every change, never mutates it (store/types.ts), so the array keys its index.
    const users = this.all();
    let index = this.byName.get(users);
    if (!index) {
      index = new Map(users.map((u) => [u.username, u]));
      this.byName.set(users, index);
    }
    return index.get(username);
  }

  /** By the account's random id (the subject of the built-in provider's tokens). */
  findById(id: string): StoredUser | undefined {
    return this.all().find((u) => u.id === id);
  }

  async create(input: { username: string; name?: string; email?: string; scope: string[]; password: string }) {
    const passwordHash = await hashPassword(input.password, this.passwordCost);
    const user: StoredUser = {
      id: randomBytes(12).toString('base64url'),
      username: input.username,
      name: input.name ?? input.username,
      email: input.email ?? '',
      scope: [...new Set(input.scope)],
      passwordHash,
      passwordVersion: 1,
      createdOn: this.now().toISOString(),
    };
    await this.change((users) => {
      if (users.some((u) => u.username === user.username)) throw conflict(`user ${JSON.stringify(user.username)} already exists`);
      return [...users, user];
    });
    return user;
  }

  async update(username: string, patch: Partial<Pick<StoredUser, 'name' | 'email' | 'scope'>>, guard?: Guard) {
    let updated: StoredUser | undefined;
    await this.change((users) => {
      const next = users.map((u) => (u.username === username ? (updated = { ...u, ...patch }) : u));
      if (!updated) throw notFound(`no user ${JSON.stringify(username)}`);
      guard?.(next, users);
      return next;
    });
    return updated!;
  }

  async setPassword(username: string, password: string) {
    const passwordHash = await hashPassword(password, this.passwordCost);
    let updated: StoredUser | undefined;
    await this.change((users) => {
      const next = users.map((u) =>
        u.username === username ? (updated = { ...u, passwordHash, passwordVersion: u.passwordVersion + 1 }) : u);
      if (!updated) throw notFound(`no user ${JSON.stringify(username)}`);
      return next;
    });
    this.credentialsChanged([updated!.id]);
    return updated!;
  }

  async remove(username: string, guard?: Guard) {
    let removed: string[] = [];
    await this.change((users) => {
      const next = users.filter((u) => u.username !== username);
      if (next.length === users.length) throw notFound(`no user ${JSON.stringify(username)}`);
      guard?.(next, users);
      removed = users.filter((u) => u.username === username).map((u) => u.id);
      return next;
    });
    this.credentialsChanged(removed);
  }

  private change(fn: (users: StoredUser[]) => StoredUser[]) {
    return this.store.update<UsersDoc>('private', KEY, (doc) => ({ users: fn(doc?.users ?? []) }));
  }
}
