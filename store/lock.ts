// One process owns a data folder. `<dir>/.lock` holds the owner's pid and is
// created exclusively (O_EXCL), so a second service on the same folder fails
// at start instead of two writers silently overwriting each other. A lock
// whose pid is no longer running (the owner was SIGKILLed or the machine
// died) is stale and taken over.
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { defaultFs, type FsFacade } from './durable-file.ts';

export const LOCK_NAME = '.lock';

/** Lock files held by this process: the same pid in a lock we do not hold is a previous life (e.g. pid 1 in a container). */
const heldHere = new Set<string>();

export interface DirLock {
  readonly file: string;
  release(): Promise<void>;
}

export class DataDirInUseError extends Error {
  constructor(readonly dir: string, readonly pid: number, lockFile: string) {
    super(`data folder ${dir} is in use by process ${pid}; stop it or point MTS_DATA_DIR elsewhere ` +
      `(if no such process is running, delete ${lockFile})`);
    this.name = 'DataDirInUseError';
  }
}

/**
 * Takes the folder for this process. On a full disk (ENOSPC, EDQUOT) the lock
 * cannot be created, or is created but its pid cannot be written: the service
 * starts all the same, logging that a second service on the folder would not
 * be refused, since it can still serve every read and answer writes with 507;
 * refusing to start would turn a full disk into an outage.
 */
export async function acquireDirLock(dir: string, fs: FsFacade = defaultFs,
  log: (message: string) => void = (message) => console.error(`[store] ${message}`)): Promise<DirLock> {
  // The real path, so two spellings of one folder (symlinks, `..`) meet at the same lock.
  const file = path.join(await realpath(dir), LOCK_NAME);
  const mine = `${process.pid}\n`;
  const unguarded = (error: unknown, what: string) =>
    log(`${what} ${file}: the data folder is full (${(error as NodeJS.ErrnoException).code}); ` +
      'starting without it, so a second service on this folder would not be refused');
  for (let attempt = 0; attempt < 5; attempt++) {
    let created: Created;
    try {
      created = await tryCreate(fs, file, mine);
    } catch (error) {
      if (!isDiskFull(error)) throw error;
      unguarded(error, 'could not create the lock');
      return { file, release: async () => undefined };
    }
    if (created !== 'exists') {
      heldHere.add(file);
      if (created !== 'created') unguarded(created.unwritten, 'could not write this process\'s pid to the lock');
      // An empty lock, once ours, is removed as ours is: by content.
      const content = created === 'created' ? mine : '';
      return { file, release: () => release(fs, file, content) };
    }
    const owner = await readOwner(fs, file);
    if (owner === 'gone') continue; // removed meanwhile: try again
    if (typeof owner === 'number' && isRunning(owner) && (owner !== process.pid || heldHere.has(file))) {
      throw new DataDirInUseError(dir, owner, file);
    }
    await takeOver(fs, file, owner);
  }
  throw new Error(`could not take the lock ${file}: other processes keep changing it`);
}

const isDiskFull = (error: unknown) => ['ENOSPC', 'EDQUOT'].includes((error as NodeJS.ErrnoException).code!);

/** 'exists': another lock is there; `unwritten`: created, but the disk was full for its content. */
type Created = 'created' | 'exists' | { unwritten: unknown };

async function tryCreate(fs: FsFacade, file: string, content: string): Promise<Created> {
  let handle;
  try {
    handle = await fs.open(file, 'wx', 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return 'exists';
    throw error;
  }
  try {
    const buffer = Buffer.from(content);
    await handle.write(buffer, 0, buffer.length, 0);
  } catch (error) {
    if (isDiskFull(error)) return { unwritten: error };
    throw error;
  } finally {
    await handle.close();
  }
  return 'created';
}

/** The owner's pid; 'stale' for content that is no pid; 'gone' if the file vanished. */
async function readOwner(fs: FsFacade, file: string): Promise<number | 'stale' | 'gone'> {
  // A lock is created empty and then filled: give a starting owner a moment before calling it stale.
  for (let i = 0; i < 10; i++) {
    let text: string;
    try {
      text = await fs.readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
      throw error;
    }
    if (text.length > 0) return parseOwner(text);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return 'stale';
}

/** A pid of 1 or more on a line of its own; anything else is no owner (0 or -1 would mean process groups to kill()). */
function parseOwner(text: string): number | 'stale' {
  if (!/^\d{1,10}\n$/.test(text)) return 'stale';
  const pid = Number(text.trim());
  return pid >= 1 ? pid : 'stale';
}

/** Whether a pid names a running process (EPERM: it runs, as another user). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Moves the stale lock aside (rename is atomic: of two processes taking over
 * at once only one moves it), checks it moved the lock it judged stale, and
 * deletes it; the caller then creates its own.
 */
async function takeOver(fs: FsFacade, file: string, judged: number | 'stale'): Promise<void> {
  const aside = `${file}.${randomBytes(6).toString('hex')}.stale.tmp`;
  try {
    await fs.rename(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const moved = await fs.readFile(aside, 'utf8').catch(() => '');
  const movedOwner = parseOwner(moved);
  if (movedOwner !== judged && typeof movedOwner === 'number' && isRunning(movedOwner)) {
    // Another process took the lock between our read and our rename: put it back.
    await fs.rename(aside, file);
    return;
  }
  await fs.unlink(aside).catch(() => undefined);
}

async function release(fs: FsFacade, file: string, mine: string): Promise<void> {
  if (!heldHere.delete(file)) return;
  const text = await fs.readFile(file, 'utf8').catch(() => undefined);
  if (text === mine) await fs.unlink(file).catch(() => undefined);
}
