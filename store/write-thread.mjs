// @ts-check
// The durable write, as one synchronous sequence: unique temp file in the same
// folder, the whole buffer written (short writes continued, checked), fsync of
// the file, close, rename over the target, fsync of the folder. lowdb's own
// writer (steno) renames a temp file but never fsyncs, so a power cut could
// leave an empty or old file behind a write that was acknowledged. Writes to
// different files can run as one group: each keeps that order, and a folder's
// fsync, which makes every rename in it durable, is paid once per group.
//
// The service runs the sequence on writer threads (writer.ts): one hand-off
// per write instead of six trips through libuv's pool, and fsyncs never hold
// the pool that password hashing and file reads share. A thread loads this
// file without the TypeScript loader (a worker does not inherit it on
// Node 20, and registering it costs about 0.1 s per thread), hence plain
// JavaScript checked by tsc through JSDoc. Tests run the same sequence on
// their own thread with a facade that records or fails calls.
import * as nodeFs from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';

/** Suffix of every temp file the store creates (they are also hidden: a leading dot). */
export const TEMP_SUFFIX = '.tmp';

/**
 * The synchronous file-system calls of a write; node:fs itself is one.
 * @typedef {{
 *   openSync(file: string, flags: string, mode?: number): number;
 *   writeSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number;
 *   fsyncSync(fd: number): void;
 *   closeSync(fd: number): void;
 *   renameSync(from: string, to: string): void;
 *   unlinkSync(file: string): void;
 * }} SyncFs
 */

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
    if (fd === undefined) folders.set(dir, (fd = fs.openSync(dir, 'r')));
    fs.fsyncSync(fd);
  };
  /**
   * A write up to its rename: `bytes` in a new temp file beside `file`, on
   * disk (fsynced, closed); the temp file's name. Nothing is left on failure.
   * @param {string} file @param {Uint8Array} bytes @param {number} mode
   */
  const stage = (file, bytes, mode) => {
    // Hidden, unique per write, and ending in TEMP_SUFFIX so a crash leftover is recognised.
    const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`);
    try {
      const fd = fs.openSync(temp, 'wx', mode);
      try {
        let offset = 0;
        while (offset < bytes.length) {
          const written = fs.writeSync(fd, bytes, offset, bytes.length - offset, offset);
          // A write that makes no progress would loop forever; report it as an I/O error.
          if (!(written > 0)) throw Object.assign(new Error(`short write to ${temp}`), { code: 'EIO' });
          offset += written;
        }
        fs.fsyncSync(fd);
      } catch (error) {
        try { fs.closeSync(fd); } catch { /* the first failure is the one to report */ }
        throw error;
      }
      fs.closeSync(fd);
      return temp;
    } catch (error) {
      try { fs.unlinkSync(temp); } catch { /* it may not exist */ }
      throw error;
    }
  };
  /**
   * Writes to distinct files as one group: every temp file on disk, then every
   * rename, then one fsync per folder. Each write still has its data durable
   * before its rename and its rename durable before it is reported; one
   * write's failure leaves the others alone. One entry per write: undefined
   * when it is done, else its failure.
   * @param {ReadonlyArray<{ file: string, bytes: Uint8Array, mode: number }>} writes
   * @returns {unknown[]}
   */
  const writeAll = (writes) => {
    /** @type {unknown[]} */
    const failures = writes.map(() => undefined);
    const temps = writes.map(({ file, bytes, mode }, i) => {
      try {
        return stage(file, bytes, mode);
      } catch (error) {
        failures[i] = error;
        return undefined;
      }
    });
    /** @type {Map<string, number[]>} which writes each folder's fsync completes */
    const renamed = new Map();
    writes.forEach(({ file }, i) => {
      const temp = temps[i];
      if (temp === undefined) return;
      try {
        fs.renameSync(temp, file);
      } catch (error) {
        failures[i] = error;
        try { fs.unlinkSync(temp); } catch { /* it may not exist */ }
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
        for (const i of group) failures[i] = error;
      }
    }
    return failures;
  };
  return {
    writeAll,
    /** Writes `bytes` to `file` atomically and durably (see the header). @param {string} file @param {Uint8Array} bytes @param {number} mode */
    write(file, bytes, mode) {
      const [failure] = writeAll([{ file, bytes, mode }]);
      if (failure !== undefined) throw failure;
    },
    /** Removes `file` and fsyncs its folder; false when there was no such file. @param {string} file */
    remove(file) {
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
  /** @typedef {{ op: 'write', writes: Array<{ file: string, length: number, mode: number }>, buffer: ArrayBuffer }} WriteJob */
  port.on('message', (/** @type {WriteJob | { op: 'remove', file: string }} */ job) => {
    if (job.op === 'remove') {
      try {
        port.postMessage({ results: [{ result: writer.remove(job.file) }] });
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
      const failures = writer.writeAll(job.writes.map(({ file, length, mode }) => {
        const bytes = scratch.subarray(at, at + length);
        at += length;
        return { file, mode, bytes };
      }));
      reply = { results: failures.map((f) => (f === undefined ? {} : { error: failureOf(f) })) };
    } catch (error) {
      reply = { error: failureOf(error) };
    }
    port.postMessage({ ...reply, buffer }, [buffer]);
  });
}
