// `npm run accounts -- <command>`: local accounts from the command line, for
// both backends (with the built-in OpenID provider it is the only way to
// manage them). It opens the data folder of the settings (MTS_CONFIG /
// settings.yml, MTS_DATA_DIR) like the service does, so it runs while the
// service is stopped: one process owns a data folder, and a running service
// would not see changes made behind its back. With store.backend: postgres it
// opens the database instead, and may run beside the replicas, which see the
// change at once. Passwords are never taken from
// the command line (shell history, ps): they are prompted for without echo, or
// read from the first line of standard input when it is not a terminal. A
// command line it cannot run exits with 64 (EX_USAGE of sysexits.h), as 2
// already says the service holds the data folder and 1 that a run failed.
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import * as v from 'valibot';
import { Accounts } from '../auth/accounts.ts';
import { OIDC_KEYS, rotateOidcKeys } from '../auth/oidc/keys.ts';
import { revokeAccount } from '../auth/oidc/adapter.ts';
import { loadSigningKey, SIGNING_KEY } from '../auth/signing-key.ts';
import type { ScopeKind } from '../auth/types.ts';
import { UserDirectory } from '../auth/users.ts';
import { loadSettings, SettingsError } from '../config/settings.ts';
import { isServiceError } from '../errors.ts';
import { PasswordSchema, UserCreateSchema, UsernameSchema } from '../schema/users.ts';
import { openFileStore } from '../store/file.ts';
import { openPostgresStore } from '../store/postgres/adapter.ts';
import { DataDirInUseError } from '../store/lock.ts';
import { commandLine, refuse, type Parsed } from './args.ts';

export interface CliIO {
  env: NodeJS.ProcessEnv;
  out: (line: string) => void;
  err: (line: string) => void;
  /** Asks for a password (twice on a terminal); standard input's first line otherwise. */
  readPassword: (prompt: string) => Promise<string>;
  /** scrypt's log2 N for the passwords set (tests pass a lower one; the service's by default). */
  passwordCost?: number;
}

/** A refusal of what the command was given (a name, a scope, a password): exit 1, nothing changed. */
class Refused extends Error {}

/** The exit code of a command line that cannot run: EX_USAGE (2 says the service holds the data folder). */
const EX_USAGE = 64;

const scopesOf = (words: string[]) => [...new Set(words.flatMap((w) => w.split(/[\s,]+/)).filter(Boolean))];

interface CommandSpec {
  /** Positional arguments allowed: least, most. */
  args: [number, number];
  /** Whether --name and --email are taken. */
  flags?: boolean;
  usage: string;
  /** What it does, one line per entry, for USAGE. */
  help: string[];
}

const COMMANDS = {
  list: { args: [0, 0], usage: 'list', help: ['show every account and its scopes'] },
  add: { args: [2, Infinity], flags: true, usage: 'add <username> <scope>... [--name N] [--email E]', help: ['create an account (asks for its password)'] },
  'set-password': { args: [1, 1], usage: 'set-password <username>', help: ['set a new password (asks for it)'] },
  'set-scopes': { args: [2, Infinity], usage: 'set-scopes <username> <scope>...', help: ["replace the account's scopes"] },
  delete: { args: [1, 1], usage: 'delete <username>', help: ['delete the account'] },
  'rotate-keys': {
    args: [0, 0], usage: 'rotate-keys',
    help: ['new token signing key (of the basic backend, or of the', 'built-in OpenID provider, which keeps the previous two)'],
  },
} satisfies Record<string, CommandSpec>;
type Command = keyof typeof COMMANDS;

/** Each command's usage, its help beside it in a column (below it when the usage is too wide). */
function usageText(): string {
  const column = 41;
  const lines = Object.values(COMMANDS).flatMap(({ usage, help }: CommandSpec) => {
    const first = `  ${usage}`;
    const [head, ...tail] = help;
    const rows = first.length < column - 1 ? [first.padEnd(column) + head] : [first, ' '.repeat(column) + head];
    return [...rows, ...tail.map((line) => ' '.repeat(column) + line)];
  });
  return ['usage: npm run accounts -- <command>', ...lines,
    'Scopes may be given separated by spaces or commas. Run it while the service is stopped, as the',
    'user the service runs as.'].join('\n');
}

export const USAGE = usageText();

/** The command and its arguments, checked before anything is opened (a mistake changes nothing), or what is wrong. */
function commandArgs(line: Parsed) {
  const [name, ...positional] = line.positionals;
  if (!Object.hasOwn(COMMANDS, name)) return `unknown command ${JSON.stringify(name)}\n${USAGE}`;
  const command = name as Command;
  const spec: CommandSpec = COMMANDS[command];
  const flags: Record<string, string> = {};
  for (const [key, value] of Object.entries(line.values)) if (typeof value === 'string') flags[key] = value;
  const [least, most] = spec.args;
  if (positional.length < least || positional.length > most || (!spec.flags && Object.keys(flags).length > 0)) {
    return `usage: npm run accounts -- ${spec.usage}`;
  }
  return { command, positional, flags };
}

function checked<S extends v.GenericSchema>(schema: S, value: unknown, what: string): v.InferOutput<S> {
  const r = v.safeParse(schema, value);
  if (r.success) return r.output;
  throw new Refused(r.issues.map((i) => `${v.getDotPath(i) ?? what}: ${i.message}`).join('; '));
}

export async function runAccounts(argv: string[], io: CliIO): Promise<number> {
  // --name N or --name=N, --email likewise; --help or -h is the usage (exit 0).
  const line = commandLine(argv, { usage: USAGE, options: { name: { type: 'string' }, email: { type: 'string' } }, words: [1, Infinity], usageCode: EX_USAGE });
  if (!line.run) return refuse(line, io);
  if (line.positionals[0] === 'help') return refuse({ run: false, code: 0, text: USAGE }, io);
  const args = commandArgs(line);
  if (typeof args === 'string') return refuse({ run: false, code: EX_USAGE, text: args }, io);
  let settings;
  try {
    settings = loadSettings(io.env);
  } catch (e) {
    io.err(e instanceof SettingsError ? e.message : String(e));
    return 1;
  }
  const shared = settings.store.backend === 'postgres';
  const refusal = shared ? undefined : await folderRefusal(settings.data.dir);
  if (refusal) {
    io.err(refusal);
    return 1;
  }
  let store;
  try {
    // The database is shared by the running replicas, which see the change at once; a data folder is the service's alone.
    store = shared ? await openPostgresStore(settings.store.postgres.url!, { log: (m) => io.err(m) })
      : await openFileStore(settings.data.dir, { log: () => undefined });
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
    const users = new UserDirectory(store, () => new Date(), io.passwordCost);
    const accounts = new Accounts(users, scopes);
    if (settings.auth.backend === 'oidc' && settings.auth.oidc.issuer !== 'builtin') {
      io.err(`note: accounts come from the external issuer ${settings.auth.oidc.issuer}; local accounts are not used for logins`);
    }
    const { positional, flags } = args;
    const username = () => checked(UsernameSchema, positional[0], 'username');
    const password = async (prompt: string) => checked(PasswordSchema, await io.readPassword(prompt), 'password');

    switch (args.command) {
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
        const next = await password(`New password for ${name}: `);
        // Tokens carry the password version; sessions and refresh tokens of the built-in provider go
        // too, first: if the change then fails, nothing of the old password's access is left.
        await revokeAccount(store, user.id);
        await accounts.setPassword(name, next);
        io.out(`password of ${name} changed; its tokens and sessions are revoked`);
        return 0;
      }
      case 'set-scopes': {
        const name = username();
        const user = accounts.get(name);
        await revokeAccount(store, user.id);
        const updated = await accounts.update(name, { scope: scopesOf(positional.slice(1)) });
        io.out(`${name} now has scopes ${updated.scope.join(' ') || '(none)'}`);
        return 0;
      }
      case 'delete': {
        const name = username();
        const user = accounts.get(name);
        await revokeAccount(store, user.id);
        await accounts.remove(name);
        io.out(`deleted ${name}`);
        return 0;
      }
      case 'rotate-keys': {
        if (settings.auth.backend === 'basic') {
          // Basic tokens live auth.tokenTtlSeconds at most, so no previous key is kept: after a leak, every token ends now.
          await store.delete('private', SIGNING_KEY);
          const { kid } = await loadSigningKey(store);
          io.out(`new signing key ${kid}; tokens issued before no longer verify, so everyone signs in again`);
          return 0;
        }
        const kid = await rotateOidcKeys(store);
        const kept = store.get<{ keys: unknown[] }>('private', OIDC_KEYS)?.keys.length ?? 1;
        io.out(`new signing key ${kid}; ${kept - 1} previous key(s) kept for verifying tokens already issued`);
        return 0;
      }
    }
  } catch (e) {
    if (e instanceof Refused) io.err(e.message);
    else if (isServiceError(e)) io.err(e.errors?.length ? e.errors.map((p) => `${p.path}: ${p.message}`).join('; ') : e.message);
    else throw e;
    return 1;
  } finally {
    await store.close();
  }
}

/**
 * Why the data folder must not be opened, or undefined: it does not exist (a
 * mistyped MTS_DATA_DIR would otherwise get a new, empty folder), or this is
 * root working on a folder the service's user owns (files root writes in
 * private/ are 0600 root, and the service could no longer read them).
 */
async function folderRefusal(dir: string): Promise<string | undefined> {
  let owner: number;
  try {
    owner = (await stat(dir)).uid;
  } catch {
    return `the data folder ${dir} does not exist; check MTS_DATA_DIR or data.dir in the settings (or start the service once to create it)`;
  }
  if (process.geteuid?.() === 0 && owner !== 0) {
    return `${dir} belongs to uid ${owner}, the user the service runs as: run this command as that user (sudo -u '#${owner}' …), not as root`;
  }
  return undefined;
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
  const ask = (prompt: string) => new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: true });
    (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = (s) => {
      if (s.startsWith(prompt)) process.stdout.write(prompt);
    };
    let answered = false;
    // Ctrl-C or Ctrl-D at the prompt cancels the command (exit 1), changing nothing.
    rl.on('SIGINT', () => rl.close());
    rl.on('close', () => {
      process.stdout.write('\n');
      if (!answered) reject(new Refused('cancelled; nothing was changed'));
    });
    rl.question(prompt, (answer) => {
      answered = true;
      rl.close();
      resolve(answer);
    });
  });
  return async (prompt) => {
    const first = await ask(prompt);
    const again = await ask('Repeat it: ');
    if (first !== again) throw new Refused('the two passwords differ');
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
