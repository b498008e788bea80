// The render pool's queue, fair between callers (docs/api.md: Limits). A
// caller is a signed-in user, or a client address when anonymous. Each caller
// has a share of the queue; the queue as a whole has a bound; beyond either, a
// job is refused at once (the pool answers 503). Jobs are taken in turn, one
// caller after another, and signed-in and anonymous callers alternate, so a
// crowd of anonymous viewers of a public picture never starves signed-in
// work, nor the reverse. Whether a caller may start another job now (its share
// of the threads) is the pool's question, passed in.

export interface Caller {
  /** `user:<name>` or `address:<address>`. */
  key: string;
  signedIn: boolean;
}

interface Waiting<T> {
  caller: Caller;
  item: T;
}

export class FairQueue<T> {
  /** Per class (signed in, anonymous), callers in the order they are served, each with its jobs in order. */
  private readonly classes = [new Map<string, Waiting<T>[]>(), new Map<string, Waiting<T>[]>()];
  private lastClass = 1;
  private count = 0;

  constructor(private readonly limits: { total: number; perCaller: number }) {}

  get size(): number {
    return this.count;
  }

  /** Whether a job of `caller` would be queued now (push answers the same). */
  hasRoom(caller: Caller): boolean {
    return this.count < this.limits.total && (this.classes[caller.signedIn ? 0 : 1].get(caller.key)?.length ?? 0) < this.limits.perCaller;
  }

  /** Queues `item` for `caller`; false when the queue or the caller's share of it is full. */
  push(caller: Caller, item: T): boolean {
    if (!this.hasRoom(caller)) return false;
    const callers = this.classes[caller.signedIn ? 0 : 1];
    const mine = callers.get(caller.key);
    if (mine) mine.push({ caller, item });
    else callers.set(caller.key, [{ caller, item }]);
    this.count++;
    return true;
  }

  /** The next job of a caller that `mayStart`, taken off the queue: the other class first, callers in turn. */
  take(mayStart: (caller: Caller) => boolean): Waiting<T> | undefined {
    for (const c of [1 - this.lastClass, this.lastClass]) {
      const callers = this.classes[c];
      for (const [key, jobs] of callers) {
        if (!mayStart(jobs[0].caller)) continue;
        const next = jobs.shift() as Waiting<T>;
        // Served: to the back of the line, or out of it.
        callers.delete(key);
        if (jobs.length > 0) callers.set(key, jobs);
        this.count--;
        this.lastClass = c;
        return next;
      }
    }
    return undefined;
  }

  /** Takes `item` off the queue (its wait ran out); false when it was not waiting. */
  remove(caller: Caller, item: T): boolean {
    const callers = this.classes[caller.signedIn ? 0 : 1];
    const jobs = callers.get(caller.key);
    const at = jobs?.findIndex((w) => w.item === item) ?? -1;
    if (!jobs || at < 0) return false;
    jobs.splice(at, 1);
    if (jobs.length === 0) callers.delete(caller.key);
    this.count--;
    return true;
  }
}
