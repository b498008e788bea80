// `npm run store -- export <folder>` and `npm run store -- import <folder>`:
// moves a deployment between a data folder and the PostgreSQL database of the
// settings (store.postgres.url / MTS_DATABASE_URL), either way, exactly: IDs,
// versions, authors and timestamps are kept, and an export after an import
// gives the same files (so a database deployment can be backed up to git).
// The receiving side must be empty; run it with the service stopped, or at
// least with no writes under way, as a backup of a moving target is not one.
import { open } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { loadSettings, SettingsError } from '../config/settings.ts';
import { commandLine, refuse } from './args.ts';
import { openFileStore } from '../store/file.ts';
import { DataDirInUseError } from '../store/lock.ts';
import { openPostgresStore } from '../store/postgres/adapter.ts';
import { notEmpty, transfer } from '../store/transfer.ts';
import type { Store } from '../store/types.ts';

export interface StoreCliIO {
  env: NodeJS.ProcessEnv;
  out: (line: string) => void;
  err: (line: string) => void;
}

const USAGE = `usage:
  npm run store -- export <folder>   copy the database (store.postgres.url / MTS_DATABASE_URL) into an empty data folder
  npm run store -- import <folder>   copy a data folder into the empty database
  npm run store -- --help            this text`;

export async function runStoreCli(argv: string[], io: StoreCliIO): Promise<number> {
  if (argv.length === 1 && argv[0] === 'help') return refuse({ run: false, code: 0, text: USAGE }, io);
  const line = commandLine(argv, { usage: USAGE, words: [2, 2] });
  if (!line.run) return refuse(line, io);
  const [command, folder] = line.positionals;
  if (command !== 'export' && command !== 'import') return refuse({ run: false, code: 2, text: `unknown command ${JSON.stringify(command)}\n${USAGE}` }, io);
  let url: string | undefined;
  try {
    url = loadSettings(io.env).store.postgres.url;
  } catch (e) {
    io.err(e instanceof SettingsError ? e.message : String(e));
    return 1;
  }
  if (!url) {
    io.err('no database: set store.postgres.url in the settings, or MTS_DATABASE_URL');
    return 1;
  }
  const dir = path.resolve(folder);
  const quiet = () => undefined;
  let files: Store | undefined;
  let database: Store | undefined;
  let rows: pg.Client | undefined;
  try {
    files = await openFileStore(dir, { log: quiet });
    database = await openPostgresStore(url, { log: (m) => io.err(m) });
    const [from, to] = command === 'export' ? [database, files] : [files, database];
    const full = notEmpty(to);
    if (full) {
      io.err(`cannot ${command}: the ${command === 'export' ? `data folder ${dir}` : 'database'} must be empty, and ${full}`);
      return 1;
    }
    if (command === 'import') {
      rows = new pg.Client({ connectionString: url });
      await rows.connect();
    }
    const putBlob = rows ? blobRowWriter(rows) : blobFileWriter(dir);
    const counts = await transfer(from, to, putBlob, io.out);
    io.out(`${command === 'export' ? 'exported' : 'imported'} ${counts.documents} documents, ${counts.logs} resources ` +
      `(${counts.versions} versions) and ${counts.blobs} results ${command === 'export' ? `into ${dir}` : `from ${dir}`}`);
    return 0;
  } catch (e) {
    if (e instanceof DataDirInUseError) io.err(`the service (process ${e.pid}) is running on ${dir}; stop it first`);
    else io.err(`${command} failed: ${(e as Error).message}`);
    return 1;
  } finally {
    await rows?.end();
    await database?.close();
    await files?.close();
  }
}

/** Blobs into results/<key>.json, durably (the file store names them by hash only when it stores them itself). */
function blobFileWriter(dir: string) {
  return async (key: string, text: string) => {
    const file = await open(path.join(dir, 'results', `${key}.json`), 'wx', 0o666);
    try {
      await file.writeFile(text);
      await file.sync();
    } finally {
      await file.close();
    }
  };
}

/** Blobs into the blobs table under their key, through the same function the service writes with. */
function blobRowWriter(client: pg.Client) {
  return async (key: string, text: string) => {
    await client.query("SELECT mts_put_blob('import', $1, $2)", [key, text]);
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  runStoreCli(process.argv.slice(2), {
    env: process.env,
    out: (l) => process.stdout.write(`${l}\n`),
    err: (l) => process.stderr.write(`${l}\n`),
  }).then((code) => { process.exitCode = code; });
}
