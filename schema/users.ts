// Request schemas of the user routes (basic backend) and of the accounts
// command line. Usernames appear in paths, logs and token subjects, so they
// are held to a strict shape: 1-64 of letters, digits, dot, underscore, @ and
// dash, starting with a letter or digit (no "..", no "-flag", no spaces).
import * as v from 'valibot';

export const USERNAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
const MIN_PASSWORD_LENGTH = 12;
/** Far above any real passphrase; bounds the work scrypt does for one request. */
const MAX_PASSWORD_LENGTH = 1024;

export const UsernameSchema = v.pipe(
  v.string('expected a string'),
  v.regex(USERNAME_PATTERN, 'expected 1 to 64 letters, digits or . _ @ -, starting with a letter or digit'),
);

export const PasswordSchema = v.pipe(
  v.string('expected a string'),
  v.minLength(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`),
  v.maxLength(MAX_PASSWORD_LENGTH, `must be at most ${MAX_PASSWORD_LENGTH} characters`),
);

// No control characters: a name is shown in lists (the accounts CLI prints one account per line).
const DisplayName = v.pipe(v.string('expected a string'), v.trim(), v.maxLength(200, 'must be at most 200 characters'),
  v.regex(/^\P{Cc}*$/u, 'must not contain control characters (line breaks, tabs, …)'));
const EMAIL_MESSAGE = 'expected an email address (or the username, as Terranova\'s editor sends it)';
const isEmail = (x: string) => v.is(v.pipe(v.string(), v.maxLength(254), v.email()), x);
// Terranova's editor sends a user's username as its email when it has no other: an address or that
// username is taken; which of the two is checked with the username (emailIsAddressOrUsername).
const Email = v.union([
  v.literal(''),
  v.pipe(v.string('expected a string'), v.maxLength(254), v.email(EMAIL_MESSAGE)),
  v.pipe(v.string('expected a string'), v.regex(USERNAME_PATTERN, EMAIL_MESSAGE)),
], EMAIL_MESSAGE);

/** Whether an `email` that is no address is the username sent beside it. */
const emailIsAddressOrUsername = (o: { username?: unknown; email?: unknown }) =>
  typeof o.email !== 'string' || o.email === '' || isEmail(o.email) || o.email === o.username;
/** Which values are allowed depends on the settings; auth/accounts.ts checks that. */
const ScopeList = v.pipe(
  v.array(v.pipe(v.string('expected a string'), v.maxLength(200)), 'expected an array of scope strings'),
  v.maxLength(50, 'too many scopes'),
);

/** valibot's object() also accepts arrays; a body must be a JSON object. */
const jsonObject = <T extends v.ObjectEntries>(entries: T) => v.pipe(
  v.unknown(),
  v.check((x) => typeof x === 'object' && x !== null && !Array.isArray(x), 'expected a JSON object'),
  v.object(entries),
);


export const UserCreateSchema = v.pipe(jsonObject({
  username: UsernameSchema,
  name: v.optional(DisplayName),
  email: v.optional(Email),
  password: PasswordSchema,
  scope: ScopeList,
}), v.check((o) => emailIsAddressOrUsername(o), `email: ${EMAIL_MESSAGE}`));

export const UserUpdateSchema = v.pipe(jsonObject({
  /** Optional; when sent it must be the username of the path (renaming is not supported). */
  username: v.optional(v.string('expected a string')),
  name: v.optional(DisplayName),
  email: v.optional(Email),
  scope: v.optional(ScopeList),
  /** Refused: the password is changed only through set_password. */
  password: v.optional(v.custom<never>(() => false, 'the password is not changed here; use PUT /api/v1/user/{username}/set_password/')),
}), v.check((o) => emailIsAddressOrUsername(o), `email: ${EMAIL_MESSAGE}`));

export const SetPasswordSchema = jsonObject({
  password: PasswordSchema,
});

export type UserCreate = v.InferOutput<typeof UserCreateSchema>;
export type UserUpdate = v.InferOutput<typeof UserUpdateSchema>;
