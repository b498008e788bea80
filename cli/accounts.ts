// `npm run accounts -- <command>`: local accounts from the command line, for
// both backends (with the built-in OpenID provider it is the only way to
// manage them). It opens the data folder of the settings (MTS_CONFIG /
// settings.yml, MTS_DATA_DIR) like the service does, so it runs while the
// service is stopped: one process owns a data folder, and a running service
// would not see changes made behind its back. Passwords are never taken from
// the command line (shell history, ps): they are prompted for without echo, or
// read from the first line of standard input when it is not a terminal.
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import * as v from 'valibot';
import { Accounts } from '../auth/accounts.ts';
import { OIDC_KEYS, rotateOidcKeys } from '../auth/oidc/keys.ts';
import { revokeAccount } from '../auth/oidc/adapter.ts';
import type { ScopeKind } from '../auth/types.ts';
import { UserDirectory } from '../auth/users.ts';
import { loadSettings, SettingsError } from '../config/settings.ts';
import { isServiceError } from '../errors.ts';
import { PasswordSchema, UserCreateSchema, UsernameSchema } from '../schema/users.ts';
import { openFileStore } from '../store/file.ts';
import { DataDirInUseError } from '../store/lock.ts';

export const USAGE = `usage: npm run accounts -- <command>
  list                                   show every account and its scopes
  add <username> <scope>... [--name N] [--email E]
                                         create an account (asks for its password)
  set-password <username>                set a new password (asks for it)
  set-scopes <username> <scope>...       replace the account's scopes
  delete <username>                      delete the account
  rotate-keys                            new signing key for the built-in OpenID provider
Scopes may be given separated by spaces or commas. Run it while the service is stopped.`;

export interface CliIO {
  env: NodeJS.ProcessEnv;
  out: (line: string) => void;
  err: (line: string) => void;
  /** Asks for a password (twice on a terminal); standard input's first line otherwise. */
  readPassword: (prompt: string) => Promise<string>;
}

class UsageError extends Error {}

function parseArgs(args: string[]) {
  const positional: string[] = [];
  const flags: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const m = /^--(name|email)(?:=(.*))?$/.exec(args[i]);
    if (m) {
      const value = m[2] ?? args[++i];
      if (value === undefined) throw new UsageError(`--${m[1]} needs a value`);
      flags[m[1]] = value;
    } else if (args[i].startsWith('--')) {
      throw new UsageError(`unknown option ${args[i]}`);
    } else {
      positional.push(args[i]);
    }
  }
  return { positional, flags };
}

const scopesOf = (words: string[]) => [...new Set(words.flatMap((w) => w.split(',')).map((s) => s.trim()).filter(Boolean))];

function checked<S extends v.GenericSchema>(schema: S, value: unknown, what: string): v.InferOutput<S> {
  const r = v.safeParse(schema, value);
  if (r.success) return r.output;
  throw new UsageError(r.issues.map((i) => `${v.getDotPath(i) ?? what}: ${i.message}`).join('; '));
}

export async function runAccounts(argv: string[], io: CliIO): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    io.out(USAGE);
    return command ? 0 : 1;
  }
  let settings;
  try {
    settings = loadSettings(io.env);
  } catch (e) {
    io.err(e instanceof SettingsError ? e.message : String(e));
    return 1;
  }
  let store;
  try {
    store = await openFileStore(settings.data.dir, { log: () => undefined });
  } catch (e) {
    if (e instanceof DataDirInUseError) {
      io.err(`The service (process ${e.pid}) is running on ${settings.data.dir}. Stop it, run this command, then start it again.` +
        (settings.auth.backend === 'basic' ? ' (With the basic backend you can also manage users through /api/v1/user while it runs.)' : ''));
      return 2;
    }
    io.err(`cannot open the data folder ${settings.data.dir}: ${(e as Error).message}`);
    return 1;
  }
  try {
    const scopes = settings.auth.scopes as Record<ScopeKind, string>;
    const users = new UserDirectory(store, () => new Date());
    const accounts = new Accounts(users, scopes);
    if (settings.auth.backend === 'oidc' && settings.auth.oidc.issuer !== 'builtin') {
      io.err(`note: accounts come from the external issuer ${settings.auth.oidc.issuer}; local accounts are not used for logins`);
    }
    const { positional, flags } = parseArgs(rest);
    const username = () => checked(UsernameSchema, positional[0] ?? '', 'username');
    const password = async (prompt: string) => checked(PasswordSchema, await io.readPassword(prompt), 'password');

    switch (command) {
      case 'list': {
        const { users: all } = accounts.list();
        for (const u of all) io.out(`${u.username}\t${u.scope.join(' ')}\t${u.name}${u.email ? ` <${u.email}>` : ''}`);
        if (!all.some((u) => u.scope.includes(scopes.admin))) io.err(`note: no account holds ${scopes.admin}`);
        return 0;
      }
      case 'add': {
        const name = username();
        const input = checked(UserCreateSchema, {
          username: name, name: flags.name, email: flags.email, scope: scopesOf(positional.slice(1)),
          password: await io.readPassword(`Password for ${name}: `),
        }, 'account');
        await accounts.create(input);
        io.out(`created ${name} with scopes ${input.scope.join(' ') || '(none)'}`);
        return 0;
      }
      case 'set-password': {
        const name = username();
        const user = accounts.get(name);
        await accounts.setPassword(name, await password(`New password for ${name}: `));
        // Tokens carry the password version; sessions and refresh tokens of the built-in provider go too.
        await revokeAccount(store, user.id);
        io.out(`password of ${name} changed; its tokens and sessions are revoked`);
        return 0;
      }
      case 'set-scopes': {
        const name = username();
        const user = accounts.get(name);
        const updated = await accounts.update(name, { scope: scopesOf(positional.slice(1)) });
        await revokeAccount(store, user.id);
        io.out(`${name} now has scopes ${updated.scope.join(' ') || '(none)'}`);
        return 0;
      }
      case 'delete': {
        const name = username();
        const user = accounts.get(name);
        await accounts.remove(name);
        await revokeAccount(store, user.id);
        io.out(`deleted ${name}`);
        return 0;
      }
      case 'rotate-keys': {
        const kid = await rotateOidcKeys(store);
        const kept = store.get<{ keys: unknown[] }>('private', OIDC_KEYS)?.keys.length ?? 1;
        io.out(`new signing key ${kid}; ${kept - 1} previous key(s) kept for verifying tokens already issued`);
        return 0;
      }
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}\n${USAGE}`);
    }
  } catch (e) {
    if (e instanceof UsageError) io.err(e.message);
    else if (isServiceError(e)) io.err(e.errors?.length ? e.errors.map((p) => `${p.path}: ${p.message}`).join('; ') : e.message);
    else throw e;
    return 1;
  } finally {
    await store.close();
  }
}

/** Hidden prompt on a terminal (asked twice for a new password); else the first line of standard input. */
function terminalPasswords(): CliIO['readPassword'] {
  if (!process.stdin.isTTY) {
    const lines = (async function* () {
      const rl = createInterface({ input: process.stdin, terminal: false });
      for await (const line of rl) yield line;
    })();
    return async () => (await lines.next()).value ?? '';
  }
  const ask = (prompt: string) => new Promise<string>((resolve) => {
    const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: true });
    (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = (s) => {
      if (s.startsWith(prompt)) process.stdout.write(prompt);
    };
    rl.question(prompt, (answer) => {
      rl.close();
      process.stdout.write('\n');
      resolve(answer);
    });
  });
  return async (prompt) => {
    const first = await ask(prompt);
    const again = await ask('Repeat it: ');
    if (first !== again) throw new UsageError('the two passwords differ');
    return first;
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  runAccounts(process.argv.slice(2), {
    env: process.env,
    out: (l) => process.stdout.write(`${l}\n`),
    err: (l) => process.stderr.write(`${l}\n`),
    readPassword: terminalPasswords(),
  }).then((code) => { process.exitCode = code; }, (e) => {
    process.stderr.write(`accounts: ${(e as Error).message}\n`);
    process.exitCode = 1;
  });
}
