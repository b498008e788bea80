// Test helper: a file-system facade over the real node:fs/promises that
// reports every call (and every call on an opened handle) to a spy, which may
// throw to simulate a failure such as a full disk.
import * as nodeFs from 'node:fs/promises';
import type { FileHandleLike, FsFacade } from '../../store/durable-file.ts';

export type Op = 'open' | 'write' | 'sync' | 'close' | 'rename' | 'unlink' | 'readFile' | 'readdir' | 'mkdir' | 'chmod';

/** Called before the real operation; throw to make the operation fail. `bytes` is set for writes. */
export type Spy = (op: Op, file: string, detail: { to?: string; flags?: string; bytes?: Uint8Array }) => void;

export function spyFs(spy: Spy, options: { maxWriteBytes?: number } = {}): FsFacade {
  const wrapHandle = (file: string, handle: FileHandleLike): FileHandleLike => ({
    write: async (buffer, offset, length, position) => {
      const n = Math.min(length, options.maxWriteBytes ?? length);
      spy('write', file, { bytes: buffer.subarray(offset, offset + n) });
      return handle.write(buffer, offset, n, position);
    },
    sync: async () => (spy('sync', file, {}), handle.sync()),
    close: async () => (spy('close', file, {}), handle.close()),
  });
  return {
    open: async (file, flags, mode) => {
      spy('open', file, { flags });
      return wrapHandle(file, await nodeFs.open(file, flags, mode));
    },
    readFile: async (file, encoding) => (spy('readFile', file, {}), nodeFs.readFile(file, encoding)),
    readdir: async (dir) => (spy('readdir', dir, {}), nodeFs.readdir(dir)),
    mkdir: async (dir, opts) => (spy('mkdir', dir, {}), nodeFs.mkdir(dir, opts)),
    chmod: async (file, mode) => (spy('chmod', file, {}), nodeFs.chmod(file, mode)),
    rename: async (from, to) => (spy('rename', from, { to }), nodeFs.rename(from, to)),
    unlink: async (file) => (spy('unlink', file, {}), nodeFs.unlink(file)),
  };
}

export const errno = (code: string) => Object.assign(new Error(`${code}: simulated failure`), { code });
