// @ts-check
// The durable write, as one synchronous sequence: unique temp file in the same
// folder, the whole buffer written (short writes continued, checked), fsync of
// the file, close, rename over the target, fsync of the folder. A write that
// names the identity it expects of the target (inode, size, modification
// time) is refused, before its rename, when the file on disk is no longer
// that one: someone changed it outside the service (ECHANGED). lowdb's own
// writer (steno) renames a temp file but never fsyncs, so a power cut could
// leave an empty or old file behind a write that was acknowledged. Writes to
// different files can run as one group: each keeps that order, and a folder's
// fsync, which makes every rename in it durable, is paid once per group.
// An append (a log's outlines) adds bytes at the end of a file and fsyncs it
// (and its folder when it made the file); a crash may cut the last bytes
// short, which its reader recognises.
//
// The service runs the sequence on writer threads (writer.ts): one hand-off
// per write instead of six trips through libuv's pool, and fsyncs never hold
// the pool that password hashing and file reads share. A thread loads this
// file without the TypeScript loader (writer.ts starts it with no execArgv:
// a worker would run the parent's `--import tsx`, about 0.1 s of CPU per
// thread), hence plain JavaScript checked by tsc through JSDoc. Tests run
// the same sequence on their own thread with a facade that records or fails
// calls.
import * as nodeFs from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';

/** Suffix of every temp file the store creates (they are also hidden: a leading dot). */
export const TEMP_SUFFIX = '.tmp';

/** Folder descriptors a writer keeps open for fsyncs at most. */
const MAX_OPEN_FOLDERS = 64;

/**
 * The synchronous file-system calls of a write; node:fs itself is one.
 * @typedef {{
 *   openSync(file: string, flags: string, mode?: number): number;
 *   writeSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number;
 *   fsyncSync(fd: number): void;
 *   closeSync(fd: number): void;
 *   renameSync(from: string, to: string): void;
 *   unlinkSync(file: string): void;
 *   statSync(file: string, options: { bigint: true, throwIfNoEntry: false }): import('node:fs').BigIntStats | undefined;
 *   fstatSync(fd: number, options: { bigint: true }): import('node:fs').BigIntStats;
 * }} SyncFs
 */

/**
 * What tells one file's content from another's without reading it: inode,
 * size and modification time in nanoseconds; '' for no file. A rename keeps
 * all three, so the identity of a temp file is its target's after the rename,
 * while a checkout, an editor or `touch` changes at least one of them.
 * @param {{ ino: bigint, size: bigint, mtimeNs: bigint } | undefined} stats
 */
export const identityOf = (stats) => (stats ? `${stats.ino}:${stats.size}:${stats.mtimeNs}` : '');

/**
 * One write: `bytes` become `file` (created with `mode`); with `expect`, only
 * while the file on disk still has that identity.
 * @typedef {{ file: string, bytes: Uint8Array, mode: number, expect?: string }} Write
 */

/** Code of the failure of a write or removal whose file changed on disk. */
export const CHANGED = 'ECHANGED';

/**
 * Durable writes and removals over `fs`, keeping one open descriptor per
 * folder for the folder fsyncs.
 * @param {SyncFs} fs
 */
export function durableWriter(fs) {
  /** @type {Map<string, number>} */
  const folders = new Map();
  /** @param {string} dir */
  const syncFolder = (dir) => {
    let fd = folders.get(dir);
    if (fd !== undefined && fs.fstatSync(fd, { bigint: true }).nlink === 0n) {
      // The folder was removed (a dropped log) since its descriptor was opened: an fsync through it would
      // succeed and make nothing durable, as a folder made again under that name is another folder.
      folders.delete(dir);
      try { fs.closeSync(fd); } catch { /* closing is best effort */ }
      fd = undefined;
    }
    if (fd === undefined) {
      // Every resource has a folder of its own: keep the descriptors of the recent ones only.
      if (folders.size >= MAX_OPEN_FOLDERS) {
        for (const [oldest, oldFd] of folders) {
          folders.delete(oldest);
          try { fs.closeSync(oldFd); } catch { /* closing is best effort */ }
          break;
        }
      }
      fd = fs.openSync(dir, 'r');
    } else {
      folders.delete(dir); // re-inserted below: Map order is recency order
    }
    folders.set(dir, fd);
    fs.fsyncSync(fd);
  };
  /**
   * A write up to its rename: `bytes` in a new temp file beside `file`, on
   * disk (fsynced, closed); the temp file's name and identity. Nothing is
   * left on failure.
   * @param {string} file @param {Uint8Array} bytes @param {number} mode
   */
  const stage = (file, bytes, mode) => {
    // Hidden, unique per write, and ending in TEMP_SUFFIX so a crash leftover is recognised.
    const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`);
    try {
      const fd = fs.openSync(temp, 'wx', mode);
      let identity = '';
      try {
        let offset = 0;
        while (offset < bytes.length) {
          const written = fs.writeSync(fd, bytes, offset, bytes.length - offset, offset);
          // A write that makes no progress would loop forever; report it as an I/O error.
          if (!(written > 0)) throw Object.assign(new Error(`short write to ${temp}`), { code: 'EIO' });
          offset += written;
        }
        fs.fsyncSync(fd);
        identity = identityOf(fs.fstatSync(fd, { bigint: true }));
      } catch (error) {
        try { fs.closeSync(fd); } catch { /* the first failure is the one to report */ }
        throw error;
      }
      fs.closeSync(fd);
      return { temp, identity };
    } catch (error) {
      try { fs.unlinkSync(temp); } catch { /* it may not exist */ }
      throw error;
    }
  };
  /**
   * Refuses (ECHANGED) when `expect` is given and `file` on disk is no longer
   * the file of that identity ('' expects no file).
   * @param {string} file @param {string | undefined} expect
   */
  const check = (file, expect) => {
    if (expect === undefined || identityOf(fs.statSync(file, { bigint: true, throwIfNoEntry: false })) === expect) return;
    throw Object.assign(new Error(`${file} was changed on disk by something other than the service`), { code: CHANGED });
  };
  /**
   * Writes to distinct files as one group: every temp file on disk, then every
   * rename, then one fsync per folder. Each write still has its data durable
   * before its rename and its rename durable before it is reported; one
   * write's failure leaves the others alone. One outcome per write: the
   * identity of the file it wrote, or its failure.
   * @param {ReadonlyArray<Write>} writes
   * @returns {Array<{ identity: string } | { error: unknown }>}
   */
  const writeAll = (writes) => {
    /** @type {Array<{ temp: string, identity: string } | { error: unknown }>} */
    const outcomes = writes.map(({ file, bytes, mode }) => {
      try {
        return stage(file, bytes, mode);
      } catch (error) {
        return { error };
      }
    });
    /** @type {Map<string, number[]>} which writes each folder's fsync completes */
    const renamed = new Map();
    writes.forEach(({ file, expect }, i) => {
      const staged = outcomes[i];
      if (!('temp' in staged)) return;
      try {
        check(file, expect); // as late as can be: the rename is what would overwrite
        fs.renameSync(staged.temp, file);
      } catch (error) {
        outcomes[i] = { error };
        try { fs.unlinkSync(staged.temp); } catch { /* it may not exist */ }
        return;
      }
      const dir = path.dirname(file);
      const group = renamed.get(dir);
      if (group) group.push(i);
      else renamed.set(dir, [i]);
    });
    for (const [dir, group] of renamed) {
      try {
        syncFolder(dir);
      } catch (error) {
        for (const i of group) outcomes[i] = { error };
      }
    }
    return outcomes.map((o) => ('error' in o ? { error: o.error } : { identity: o.identity }));
  };
  /**
   * Writes `bytes` whole at the end of `file` (made with `mode` when absent), then fsyncs the file, and its
   * folder when the file is new.
   * @param {string} file @param {Uint8Array} bytes @param {number} mode
   */
  const append = (file, bytes, mode) => {
    const made = fs.statSync(file, { bigint: true, throwIfNoEntry: false }) === undefined;
    const fd = fs.openSync(file, 'a', mode);
    try {
      // Written where the file ends (in append mode, Linux ignores the position and appends anyway).
      const end = Number(fs.fstatSync(fd, { bigint: true }).size);
      let offset = 0;
      while (offset < bytes.length) {
        const written = fs.writeSync(fd, bytes, offset, bytes.length - offset, end + offset);
        if (!(written > 0)) throw Object.assign(new Error(`short write to ${file}`), { code: 'EIO' });
        offset += written;
      }
      fs.fsyncSync(fd);
    } finally {
      try { fs.closeSync(fd); } catch { /* the first failure is the one to report */ }
    }
    if (made) syncFolder(path.dirname(file));
  };
  return {
    writeAll,
    append,
    /**
     * Writes `bytes` to `file` atomically and durably (see the header); the identity of the file written.
     * @param {string} file @param {Uint8Array} bytes @param {number} mode @param {string} [expect]
     */
    write(file, bytes, mode, expect) {
      const [outcome] = writeAll([{ file, bytes, mode, expect }]);
      if ('error' in outcome) throw outcome.error;
      return outcome.identity;
    },
    /**
     * Removes `file` and fsyncs its folder; false when there was no such file.
     * @param {string} file @param {string} [expect]
     */
    remove(file, expect) {
      check(file, expect);
      try {
        fs.unlinkSync(file);
      } catch (error) {
        if (/** @type {NodeJS.ErrnoException} */ (error).code === 'ENOENT') return false;
        throw error;
      }
      syncFolder(path.dirname(file));
      return true;
    },
    close() {
      for (const fd of folders.values()) try { fs.closeSync(fd); } catch { /* closing is best effort */ }
      folders.clear();
    },
  };
}

/**
 * A failure as it crosses to the thread that asked: message and errno code.
 * @param {unknown} error
 */
const failureOf = (error) => ({
  message: error instanceof Error ? error.message : String(error),
  code: /** @type {NodeJS.ErrnoException} */ (error)?.code,
});

// Started as a writer thread: serve jobs one at a time, in order. A job is a
// group of writes, whose bytes lie one after another at the start of the
// buffer that comes with it and goes back with the reply, for the next job
// (writer.ts); or a removal.
if (parentPort && workerData === 'mts-writer') {
  const port = parentPort;
  const writer = durableWriter(nodeFs);
  /** @typedef {{ op: 'write', writes: Array<{ file: string, length: number, mode: number, expect?: string }>, buffer: ArrayBuffer }} WriteJob */
  port.on('message', (/** @type {WriteJob | { op: 'remove', file: string, expect?: string } | { op: 'append', file: string, bytes: Uint8Array, mode: number }} */ job) => {
    if (job.op === 'append') {
      try {
        writer.append(job.file, job.bytes, job.mode);
        port.postMessage({ results: [{ result: true }] });
      } catch (error) {
        port.postMessage({ error: failureOf(error) });
      }
      return;
    }
    if (job.op === 'remove') {
      try {
        port.postMessage({ results: [{ result: writer.remove(job.file, job.expect) }] });
      } catch (error) {
        port.postMessage({ error: failureOf(error) });
      }
      return;
    }
    const { buffer } = job;
    /** @type {object} */
    let reply;
    try {
      const scratch = new Uint8Array(buffer);
      let at = 0;
      const outcomes = writer.writeAll(job.writes.map(({ file, length, mode, expect }) => {
        const bytes = scratch.subarray(at, at + length);
        at += length;
        return { file, mode, bytes, expect };
      }));
      reply = { results: outcomes.map((o) => ('error' in o ? { error: failureOf(o.error) } : { result: o.identity })) };
    } catch (error) {
      reply = { error: failureOf(error) };
    }
    port.postMessage({ ...reply, buffer }, [buffer]);
  });
}
