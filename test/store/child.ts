// Test helper: runs a TypeScript entry file in a child Node process (through
// tsx, as `npm start` does), waits for the line that says where it listens,
// and collects its output for assertions.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface Child {
  proc: ChildProcess;
  pid: number;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code (or the signal name) once the process has ended. */
  exited: Promise<number | string>;
}

export function runTs(entry: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): Child {
  const proc = spawn(process.execPath, ['--import', 'tsx', entry, ...args], {
    cwd: REPO,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | string>((resolve) => proc.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return { proc, pid: proc.pid!, stdout: () => out, stderr: () => err, exited };
}

/**
 * Waits until stdout matches `pattern`; fails if the process exits first or `ms` pass (a guard against a hang, far
 * beyond a start of the service on a loaded machine).
 */
export async function waitForOutput(child: Child, pattern: RegExp, ms = 120_000): Promise<RegExpMatchArray> {
  const deadline = Date.now() + ms;
  for (;;) {
    const match = child.stdout().match(pattern);
    if (match) return match;
    if (child.proc.exitCode !== null || child.proc.signalCode !== null) {
      throw new Error(`process exited (${child.proc.exitCode ?? child.proc.signalCode}) before printing ${pattern}:\n${child.stdout()}\n${child.stderr()}`);
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}:\n${child.stdout()}\n${child.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
