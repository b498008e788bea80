// The cap on password checks running at once (auth/throttle.ts): known
// pairs may take every slot, strangers all but one, and known pairs are
// served first.
import { ServiceError } from '../errors.ts';

export const rateLimited = (detail: string, retryAfter: number) =>
  new ServiceError('rate_limited', `${detail}; try again in ${retryAfter} s`, { headers: { 'Retry-After': String(retryAfter) } });

type Release = () => void;

/** The cap on password checks at once: known pairs may take every slot, strangers all but one, and known pairs are served first. */
export class CheckSlots {
  private running = 0;
  private strangersRunning = 0;
  private waiting = { known: [] as Release[], stranger: [] as Release[] };

  constructor(private max: number, private maxQueued: number) {}

  private free(known: boolean) {
    return this.running < this.max && (known || this.strangersRunning < this.max - 1);
  }

  private take(known: boolean) {
    this.running++;
    if (!known) this.strangersRunning++;
  }

  /** Resolves once a slot is this check's; throws 429 at once when the queue is full. */
  acquire(known: boolean): Promise<void> {
    const queue = known ? this.waiting.known : this.waiting.stranger;
    // Nobody passes those waiting in its own queue, and a stranger does not pass known pairs waiting either.
    const ahead = queue.length + (known ? 0 : this.waiting.known.length);
    if (!ahead && this.free(known)) {
      this.take(known);
      return Promise.resolve();
    }
    if (queue.length >= this.maxQueued) {
      return Promise.reject(rateLimited('too many logins are being checked at once', 1));
    }
    return new Promise((resolve) => queue.push(() => { this.take(known); resolve(); }));
  }

  release(known: boolean) {
    this.running--;
    if (!known) this.strangersRunning--;
    while (this.waiting.known.length && this.free(true)) this.waiting.known.shift()!();
    while (!this.waiting.known.length && this.waiting.stranger.length && this.free(false)) this.waiting.stranger.shift()!();
  }

  /** Checks running and waiting (for tests and diagnostics). */
  get load() {
    return { running: this.running, strangersRunning: this.strangersRunning,
      knownWaiting: this.waiting.known.length, strangersWaiting: this.waiting.stranger.length };
  }
}

