// Memo of finished outputs (topology JSON, map outputs, SVG, PNG): their
// bytes and ETag, so a repeated request or a 304 costs no render. The key
// names the request (route, resource ID and version, every parameter that
// shapes the answer); what the output was drawn from beyond that (a layer's
// dataset at its latest version, a template, a live sheet) is recorded while
// it renders as dependencies, each with the value it had then and a probe
// for its value now. A cached output is served only while every probe still
// answers the same value; one that fails or differs means a new render.
// Probes are cheap look-ups (a version number, a file's identity), never a
// read of the data. Beneath it, topology-cache.ts keeps built topologies of
// stored results, which outputs that share a dataset share.
// Bounded by bytes, least recently used out (store/lru.ts). Identical
// requests that arrive while one renders wait for that one render.
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
}

/** What a render records its dependencies into; one per key (layers sharing a sheet probe it once). */
export class Dependencies {
  private readonly byKey = new Map<string, Dependency>();
  /** `probe` must answer `seen` for as long as the output stays right. */
  add(key: string, seen: string, probe: () => string | Promise<string>): void {
    if (!this.byKey.has(key)) this.byKey.set(key, { key, seen, probe });
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

async function current(deps: readonly Dependency[]): Promise<boolean> {
  try {
    const now = await Promise.all(deps.map((d) => d.probe()));
    return now.every((value, i) => value === deps[i].seen);
  } catch {
    return false; // gone or unreadable now: the render says why
  }
}

export interface OutputCacheOptions {
  /** Most bytes of outputs kept (0: none). */
  maxBytes: number;
  /** Called on every render (every miss): tests count them. */
  onRender?: (key: string) => void;
}

export function createOutputCache(options: OutputCacheOptions) {
  const entries = new Lru<Entry>(options.maxBytes);
  const rendering = new Map<string, Promise<Entry>>();

  /**
   * The output under `key`: the cached one while its dependencies hold,
   * else `render`'s, which records what it read into the Dependencies it is
   * given. `parent`, when given, gains this output's dependencies (an output
   * drawn from another cached output, as a PNG from its SVG).
   */
  async function output(key: string, render: (deps: Dependencies) => Promise<OutputBody>, parent?: Dependencies): Promise<Output> {
    let entry = entries.get(key);
    if (entry && !(await current(entry.deps))) entry = undefined;
    if (!entry) {
      let pending = rendering.get(key);
      if (!pending) {
        pending = (async () => {
          options.onRender?.(key);
          const deps = new Dependencies();
          const rendered = await render(deps);
          const body = typeof rendered === 'string' ? Buffer.from(rendered) : rendered;
          const made: Entry = { body, etag: etagOf(body), deps: deps.list };
          entries.set(key, made, weight(key, made));
          return made;
        })();
        rendering.set(key, pending);
        // A failed render is not kept: its cause may pass (a sheet put back, a template fixed).
        pending.finally(() => rendering.delete(key)).catch(() => undefined);
      }
      entry = await pending;
    }
    if (parent) parent.merge(entry.deps);
    return entry;
  }

  return { output };
}

export type OutputCache = ReturnType<typeof createOutputCache>;
