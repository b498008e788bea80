// Test helper: file-system facades over the real node:fs that report every
// call to a spy, which may throw to simulate a failure such as a full disk:
// `fs` for the store's asynchronous calls (loading, the lock), `syncFs` for
// the calls of durable writes, which then run on the test's thread.
import * as nodeFs from 'node:fs/promises';
import * as fsSync from 'node:fs';
import type { FileHandleLike, FsFacade } from '../../store/durable-file.ts';
import type { SyncFs } from '../../store/write-thread.mjs';

export type Op = 'open' | 'write' | 'sync' | 'close' | 'rename' | 'unlink' | 'readFile' | 'readdir' | 'mkdir' | 'chmod' | 'stat' | 'rmdir';

/** Called before the real operation; throw to make the operation fail. `bytes` is set for writes. */
export type Spy = (op: Op, file: string, detail: { to?: string; flags?: string; bytes?: Uint8Array }) => void;

export function spyFs(spy: Spy, options: { maxWriteBytes?: number } = {}): { fs: FsFacade; syncFs: SyncFs } {
  const wrapHandle = (file: string, handle: FileHandleLike): FileHandleLike => ({
    write: async (buffer, offset, length, position) => {
      spy('write', file, { bytes: buffer.subarray(offset, offset + length) });
      return handle.write(buffer, offset, length, position);
    },
    sync: async () => (spy('sync', file, {}), handle.sync()),
    close: async () => (spy('close', file, {}), handle.close()),
  });
  const fs: FsFacade = {
    open: async (file, flags, mode) => {
      spy('open', file, { flags });
      return wrapHandle(file, await nodeFs.open(file, flags, mode));
    },
    readFile: (async (file: string, encoding?: 'utf8') => (spy('readFile', file, {}), nodeFs.readFile(file, encoding))) as FsFacade['readFile'],
    stat: async (file, opts) => (spy('stat', file, {}), nodeFs.stat(file, opts)),
    readdir: async (dir) => (spy('readdir', dir, {}), nodeFs.readdir(dir)),
    mkdir: async (dir, opts) => (spy('mkdir', dir, {}), nodeFs.mkdir(dir, opts)),
    chmod: async (file, mode) => (spy('chmod', file, {}), nodeFs.chmod(file, mode)),
    rename: async (from, to) => (spy('rename', from, { to }), nodeFs.rename(from, to)),
    unlink: async (file) => (spy('unlink', file, {}), nodeFs.unlink(file)),
    rmdir: async (dir) => (spy('rmdir', dir, {}), nodeFs.rmdir(dir)),
  };
  const paths = new Map<number, string>();
  const syncFs: SyncFs = {
    openSync: (file, flags, mode) => {
      spy('open', file, { flags });
      const fd = fsSync.openSync(file, flags, mode);
      paths.set(fd, file);
      return fd;
    },
    writeSync: (fd, buffer, offset, length, position) => {
      const n = Math.min(length, options.maxWriteBytes ?? length);
      spy('write', paths.get(fd)!, { bytes: buffer.subarray(offset, offset + n) });
      return fsSync.writeSync(fd, buffer, offset, n, position);
    },
    fsyncSync: (fd) => (spy('sync', paths.get(fd)!, {}), fsSync.fsyncSync(fd)),
    closeSync: (fd) => {
      spy('close', paths.get(fd)!, {});
      paths.delete(fd);
      fsSync.closeSync(fd);
    },
    renameSync: (from, to) => (spy('rename', from, { to }), fsSync.renameSync(from, to)),
    unlinkSync: (file) => (spy('unlink', file, {}), fsSync.unlinkSync(file)),
    statSync: (file, opts) => (spy('stat', file, {}), fsSync.statSync(file, opts)),
    // Stating the temp file being written is part of writing it; not reported.
    fstatSync: (fd, opts) => fsSync.fstatSync(fd, opts),
  };
  return { fs, syncFs };
}

export const errno = (code: string) => Object.assign(new Error(`${code}: simulated failure`), { code });
