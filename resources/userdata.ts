// Each user's own data for Terranova's editor (favourites and recently
// edited), kept in the private part of the store beside the users, one
// document for all of them: small, and never shown to anyone but its owner.
// A user's entry goes when the user is deleted.
import { notFound } from '../errors.ts';
import type { UserData } from '../schema/userdata.ts';
import type { Store } from '../store/types.ts';

const KEY = 'userdata';
type Doc = { users: Record<string, UserData> };

export function createUserData(store: Store) {
  const all = () => store.get<Doc>('private', KEY)?.users ?? {};
  const show = (username: string, data: UserData) => ({ username, ...data });
  const write = (username: string, data: UserData | undefined) => store.update<Doc>('private', KEY, (doc) => {
    // A plain object built by copying own entries: a username such as "__proto__" stays a key.
    const users: Record<string, UserData> = Object.create(null);
    for (const [name, value] of Object.entries(doc?.users ?? {})) if (name !== username) users[name] = value;
    if (data) users[username] = data;
    return { users: { ...users } };
  });

  return {
    /** The user's data; 404 until it is first stored (the editor then creates it). */
    get(username: string) {
      const users = all();
      if (!Object.hasOwn(users, username)) throw notFound(`no user data for ${username} yet; POST it first`);
      return show(username, users[username]);
    },
    /** Stores the user's data whole; whether it existed before. */
    async put(username: string, data: UserData, mustExist: boolean) {
      const existed = Object.hasOwn(all(), username);
      if (mustExist && !existed) throw notFound(`no user data for ${username} yet; POST it first`);
      await write(username, data);
      return { existed, body: show(username, data) };
    },
    /** Removes the user's data (the user was deleted). */
    async forget(username: string) {
      if (Object.hasOwn(all(), username)) await write(username, undefined);
    },
  };
}

export type UserDataStore = ReturnType<typeof createUserData>;
