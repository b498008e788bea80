// fsync of a folder, shared: each collection folder keeps one open handle for
// the store's lifetime, and writers that finish their rename while a folder
// fsync is already running join the next one instead of each paying their
// own (group commit). A writer only ever waits for an fsync that started
// after its rename, so its new directory entry is covered.
import type { FileHandleLike, FsFacade } from './durable-file.ts';

const noop = () => undefined;

export class DirSyncer {
  private handle?: Promise<FileHandleLike>;
  private running?: Promise<void>;
  private next?: Promise<void>;

  constructor(private readonly fs: FsFacade, readonly dir: string) {}

  /** Resolves once an fsync of the folder that started after this call has finished. */
  sync(): Promise<void> {
    if (this.next) return this.next;
    if (!this.running) return this.launch();
    this.next = this.running.then(noop, noop).then(() => {
      this.next = undefined;
      return this.launch();
    });
    return this.next;
  }

  async close(): Promise<void> {
    await Promise.all([this.running, this.next].map((p) => p?.catch(noop)));
    const handle = this.handle;
    this.handle = undefined;
    if (handle) await (await handle.catch(() => undefined))?.close().catch(noop);
  }

  private launch(): Promise<void> {
    const run = this.fsync();
    this.running = run;
    void run.then(noop, noop).then(() => {
      if (this.running === run) this.running = undefined;
    });
    return run;
  }

  private async fsync(): Promise<void> {
    this.handle ??= this.fs.open(this.dir, 'r');
    let handle: FileHandleLike;
    try {
      handle = await this.handle;
    } catch (error) {
      this.handle = undefined; // try opening again next time
      throw error;
    }
    await handle.sync();
  }
}
