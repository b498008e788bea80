// Memo of finished outputs (topology JSON, map outputs, SVG, PNG): their
// bytes and ETag, so a repeated request or a 304 costs no render. The key
// names the request (route, resource ID and version, every parameter that
// shapes the answer); what the output was drawn from beyond that (a layer's
// dataset at its latest version, a template, a live sheet) is recorded while
// it renders as dependencies, each with the value it had then and a probe
// for its value now. A cached output is served only while every probe still
// answers the same value; one that fails or differs means a new render.
// Probes are cheap look-ups (a version number, a file's identity), never a
// read of the data; a probe that costs system calls (a sheet's identity) may
// be given a most age: its answer is then shared by every output that
// depends on the same thing and asked again only once that old (docs/api.md:
// Output cache, how fresh live layers are). Beneath it, topology-cache.ts
// keeps built topologies of stored results, which outputs that share a
// dataset share.
// Bounded by bytes, least recently used out (store/lru.ts), and an output
// nobody asked for in OUTPUT_IDLE_MS is dropped, so the cache a load filled
// empties once it ends. Identical requests that arrive while one renders
// wait for that one render.
import { createHash } from 'node:crypto';
import { Lru } from '../store/lru.ts';

export type OutputBody = string | Uint8Array;

export interface Output {
  /** The bytes sent: a rendered string is encoded once, not on every answer. */
  body: Uint8Array;
  /** Strong ETag of the bytes (quoted). */
  etag: string;
}

/** One thing an output was drawn from: what names it, the value it had, and how to ask for its value now. */
interface Dependency {
  key: string;
  seen: string;
  probe: () => string | Promise<string>;
  /** How old (ms) an answer of the probe may be when reused; absent: asked on every request. */
  maxAgeMs?: number;
  /** When `seen` was read (the cache's clock, ms); with a most age only. */
  seenAt: number;
}

/** What a render records its dependencies into; one per key (layers sharing a sheet probe it once). */
export class Dependencies {
  private readonly byKey = new Map<string, Dependency>();
  /** `clock`: the output cache's, in ms. */
  constructor(private readonly clock: () => number = Date.now) {}
  /**
   * `probe` must answer `seen` for as long as the output stays right. With
   * `maxAgeMs`, an answer of the probe up to that old counts as its answer now.
   */
  add(key: string, seen: string, probe: () => string | Promise<string>, maxAgeMs?: number): void {
    if (!this.byKey.has(key)) this.byKey.set(key, { key, seen, probe, maxAgeMs, seenAt: maxAgeMs === undefined ? 0 : this.clock() });
  }
  merge(deps: readonly Dependency[]): void {
    for (const d of deps) if (!this.byKey.has(d.key)) this.byKey.set(d.key, d);
  }
  get list(): Dependency[] {
    return [...this.byKey.values()];
  }
}

interface Entry extends Output {
  deps: Dependency[];
}

/** The strong ETag of an output's bytes: SHA-256 in base64url, cut to 22 characters (132 bits). */
export function etagOf(body: OutputBody): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
}

const weight = (key: string, e: Entry) => e.body.byteLength + key.length + 64 * (e.deps.length + 2);

export interface OutputCacheOptions {
  /** Most bytes of outputs kept (0: none). */
  maxBytes: number;
  /** Called on every render (every miss): tests count them. */
  onRender?: (key: string) => void;
  /** Told of every output asked for (from the cache or rendered, with its bytes) and every render's time (for /metrics). */
  observe?: OutputObserver;
  /** The clock the answers of probes with a most age are timed by (ms); tests pin it. */
  now?: () => number;
  /** The clock OUTPUT_IDLE_MS is timed by; default performance.now (tests drive it with mock timers). */
  idleClock?: { now(): number };
  /** Told each time an output is dropped for being idle (server.ts: a collection once quiet, pool/memory.ts). */
  onIdleDrop?: () => void;
}

export interface OutputObserver {
  answered(key: string, hit: boolean, bytes: number): void;
  rendered(key: string, seconds: number): void;
}

/**
 * How long an output nobody asks for is kept (ms). A picture embedded in a
 * dashboard that refreshes every few seconds, or a map an editor works on,
 * stays; one asked once an hour is drawn again (on the render pool) rather
 * than held. Timed by the process's own clock, not the app's (tests move that).
 */
export const OUTPUT_IDLE_MS = 30_000;

/** Answers of probes with a most age kept at most (one per sheet in use, in practice); a full memory starts again. */
const MAX_ANSWERS = 10_000;

export function createOutputCache(options: OutputCacheOptions) {
  const entries = new Lru<Entry>(options.maxBytes, { idleMs: OUTPUT_IDLE_MS, clock: options.idleClock, onIdleDrop: options.onIdleDrop });
  const rendering = new Map<string, Promise<Entry>>();
  const clock = options.now ?? Date.now;
  /** The latest answer of each probe that has a most age, by dependency key, with when it was read. */
  const answers = new Map<string, { value: string; at: number }>();

  const remember = (key: string, value: string, at: number) => {
    const known = answers.get(key);
    if (known && known.at > at) return;
    if (!known && answers.size >= MAX_ANSWERS) answers.clear();
    answers.set(key, { value, at });
  };

  /**
   * Whether every dependency still answers what it did; at once when no probe
   * has to wait (version numbers, or answers young enough to reuse).
   */
  function current(deps: readonly Dependency[]): boolean | Promise<boolean> {
    let at = 0; // read from the clock once a dependency needs it
    let waiting: Promise<boolean>[] | undefined;
    for (const d of deps) {
      if (d.maxAgeMs !== undefined) {
        at ||= clock();
        const known = answers.get(d.key);
        if (known && at - known.at < d.maxAgeMs) {
          if (known.value !== d.seen) return false;
          continue;
        }
      }
      let now: string | Promise<string>;
      try {
        now = d.probe();
      } catch {
        return false; // gone or unreadable now: the render says why
      }
      if (typeof now === 'string') {
        if (d.maxAgeMs !== undefined) remember(d.key, now, at);
        if (now !== d.seen) return false;
        continue;
      }
      (waiting ??= []).push(now.then((value) => {
        if (d.maxAgeMs !== undefined) remember(d.key, value, at);
        return value === d.seen;
      }, () => false));
    }
    return waiting === undefined ? true : Promise.all(waiting).then((same) => same.every(Boolean));
  }

  /** A render of `key`, shared by identical requests while it runs. */
  function rendered(key: string, render: (deps: Dependencies) => Promise<OutputBody>): Promise<Entry> {
    let pending = rendering.get(key);
    if (!pending) {
      pending = (async () => {
        options.onRender?.(key);
        const deps = new Dependencies(clock);
        const started = performance.now();
        const body = await render(deps);
        const bytes = typeof body === 'string' ? Buffer.from(body) : body;
        options.observe?.rendered(key, (performance.now() - started) / 1000);
        const made: Entry = { body: bytes, etag: etagOf(bytes), deps: deps.list };
        // What the render read is the latest answer of those probes: outputs drawn before it compare with it.
        for (const d of made.deps) if (d.maxAgeMs !== undefined) remember(d.key, d.seen, d.seenAt);
        entries.set(key, made, weight(key, made));
        return made;
      })();
      rendering.set(key, pending);
      // A failed render is not kept: its cause may pass (a sheet put back, a template fixed).
      pending.finally(() => rendering.delete(key)).catch(() => undefined);
    }
    return pending;
  }

  /**
   * The output under `key`: the cached one while its dependencies hold,
   * else `render`'s, which records what it read into the Dependencies it is
   * given. `parent`, when given, gains this output's dependencies (an output
   * drawn from another cached output, as a PNG from its SVG). At once (no
   * promise) when a kept output's dependencies answer at once.
   */
  function output(key: string, render: (deps: Dependencies) => Promise<OutputBody>, parent?: Dependencies): Output | Promise<Output> {
    const kept = entries.get(key);
    const same = kept === undefined ? false : current(kept.deps);
    const found = same === true ? kept! : same === false ? rendered(key, render) : same.then((ok) => (ok ? kept! : rendered(key, render)));
    const observe = options.observe;
    if (observe) {
      if (found instanceof Promise) void found.then((e) => observe.answered(key, e === kept, e.body.byteLength), () => undefined);
      else observe.answered(key, true, found.body.byteLength);
    }
    if (!parent) return found;
    if (found instanceof Promise) {
      return found.then((entry) => {
        parent.merge(entry.deps);
        return entry;
      });
    }
    parent.merge(found.deps);
    return found;
  }

  return { output };
}

export type OutputCache = ReturnType<typeof createOutputCache>;
