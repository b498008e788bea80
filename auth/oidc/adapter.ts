// Storage for the built-in provider's models (oidc-provider's adapter
// contract).
//
// What survives a restart: grants, refresh tokens and signed-in sessions
// (a Session with an accountId), in one private document
// (`private/oidc-state.json`). Everything else is short-lived: interactions,
// authorization codes, pushed requests, replay markers, and sessions nobody
// has signed in to (oidc-provider saves one for a bare GET of the logout
// page). Those go to the store's shared entries when it has them (PostgreSQL:
// a table every replica reads, so a sign-in begun on one replica ends on
// another), else to this process's memory (memory-entries.ts); both bounded
// alike, per client address (caller.ts).
// Losing the memory ones on restart only means starting the sign-in again,
// and keeping them out of the document means no request without a password
// ever rewrites it: the document is written whole, so a write per anonymous
// request would cost the size of every stored login, each time.
//
// Signed-in sessions are kept at most `maxEntries` in the document; lookups
// by uid, user code and grant go through indexes.
//
// Consumption (authorization codes, rotated refresh tokens) is a
// compare-and-set: of parallel requests with one code or refresh token
// exactly one consumes it; the others find it consumed, which is reuse,
// and revoke its grant as oidc-provider does for a later reuse.
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { SharedEntries, Store } from '../../store/types.ts';
import { oidcCaller } from './caller.ts';
import { BOUNDED, boundOf, MemoryEntries } from './memory-entries.ts';
import { type Entry, fromShared, LOOKUP_FIELDS, type LookupField, toShared } from './shared-form.ts';

export const OIDC_STATE = 'oidc-state';
/** Models whose entries may be kept in the document (a Session only once signed in). */
const PERSISTABLE = new Set(['Grant', 'RefreshToken', 'Session']);

interface StateDoc {
  entries: Record<string, Entry>;
}

export interface OidcStorageOptions {
  /** Most entries kept at once of each bounded model (auth.oidc.maxInteractions). */
  maxEntries?: number;
}

type Change = (entries: Record<string, Entry>) => void;
type Queued = { change: Change; resolve: () => void; reject: (e: unknown) => void };

const nowSeconds = () => Math.floor(Date.now() / 1000);
const live = (e: Entry | undefined, now = nowSeconds()): e is Entry => !!e && (e.exp === undefined || e.exp > now);
const persistent = (model: string, payload: AdapterPayload) =>
  model === 'Grant' || model === 'RefreshToken' || (model === 'Session' && typeof payload.accountId === 'string' && !!payload.accountId);
const docKey = (model: string, id: string) => `${model}:${id}`;
const splitKey = (key: string): [string, string] => {
  const at = key.indexOf(':');
  return [key.slice(0, at), key.slice(at + 1)];
};

export type ConsumeOutcome = 'consumed' | 'missing' | 'reused';

/** One instance per provider; the adapters of every model share it, so revocation by grant spans them all. */
export class OidcStorage {
  /** The short-lived entries: the store's shared ones, or this process's memory. */
  private short: SharedEntries;
  /** The same over the document, rebuilt when the document changed. */
  private docIndex: { doc: StateDoc | undefined; index: Map<string, Set<string>> } = { doc: undefined, index: new Map() };
  private queue: Queued[] = [];
  private flushing: Promise<void> | undefined;
  private readonly maxEntries: number;

  constructor(private store: Store, options: OidcStorageOptions = {}) {
    this.maxEntries = options.maxEntries ?? 10_000;
    this.short = store.sharedEntries ?? new MemoryEntries(this.maxEntries);
  }

  // ---- reading ----

  private doc(): StateDoc | undefined {
    return this.store.get<StateDoc>('private', OIDC_STATE);
  }

  private persisted(model: string, id: string): Entry | undefined {
    if (!PERSISTABLE.has(model)) return undefined;
    const entries = this.doc()?.entries;
    const key = docKey(model, id);
    return entries && Object.hasOwn(entries, key) ? entries[key] : undefined;
  }

  async get(model: string, id: string): Promise<Entry | undefined> {
    if (oidcCaller.getStore()?.showing) await this.short.keep(model, id);
    const e = fromShared(await this.short.get(model, id)) ?? this.persisted(model, id);
    return live(e) ? e : undefined;
  }

  /** The live entry of `model` whose payload has `field` equal to `value`. */
  async findBy(model: string, field: LookupField, value: string): Promise<Entry | undefined> {
    const short = fromShared(await this.short.findBy(model, field, value));
    if (short) return short;
    if (!PERSISTABLE.has(model)) return undefined;
    for (const id of this.persistedIndex().get(indexKey(model, field, value)) ?? []) {
      const e = this.persisted(model, id);
      if (live(e) && e.payload[field] === value) return e;
    }
    return undefined;
  }

  private persistedIndex() {
    const doc = this.doc();
    if (this.docIndex.doc !== doc) {
      const index = new Map<string, Set<string>>();
      for (const [key, e] of Object.entries(doc?.entries ?? {})) {
        const [model, id] = splitKey(key);
        addIndex(index, model, id, e);
      }
      this.docIndex = { doc, index };
    }
    return this.docIndex.index;
  }

  /** Entries held, per model, in this process's memory (none with shared entries) and in the document (for tests and the benchmark). */
  counts(): { memory: Record<string, number>; persisted: Record<string, number> } {
    const memory = this.short instanceof MemoryEntries ? this.short.counts() : {};
    const persisted: Record<string, number> = {};
    for (const key of Object.keys(this.doc()?.entries ?? {})) {
      const [model] = splitKey(key);
      persisted[model] = (persisted[model] ?? 0) + 1;
    }
    return { memory, persisted };
  }

  // ---- writing ----

  async set(model: string, id: string, entry: Entry) {
    if (persistent(model, entry.payload)) {
      await this.write((entries) => { entries[docKey(model, id)] = entry; });
      // A session that was anonymous until now: its short-lived copy answered reads until the document had it.
      await this.short.delete(model, id);
      return;
    }
    // What anyone can create is bounded per client address, in memory and in the database alike.
    const owner = BOUNDED.has(model) ? oidcCaller.getStore()?.address : undefined;
    await this.short.set(model, id, toShared(entry, owner, owner === undefined ? undefined : boundOf(this.maxEntries)));
    // A session signed out (no accountId any more) must not come back from the document.
    if (this.persisted(model, id)) await this.write((entries) => { delete entries[docKey(model, id)]; });
  }

  async destroy(model: string, id: string) {
    await this.short.delete(model, id);
    if (this.persisted(model, id)) await this.write((entries) => { delete entries[docKey(model, id)]; });
  }

  /**
   * Marks the entry consumed unless it already is, atomically: among the
   * short-lived entries a check-and-set (in memory synchronous, in the
   * database one conditional update), in the document a check-and-set inside
   * the store's serialized read-modify-write.
   */
  async consume(model: string, id: string): Promise<ConsumeOutcome> {
    const short = await this.short.consume(model, id, nowSeconds());
    if (short !== 'missing') return short;
    if (!this.persisted(model, id)) return 'missing';
    let outcome: ConsumeOutcome = 'missing';
    await this.write((entries) => {
      const key = docKey(model, id);
      const e = Object.hasOwn(entries, key) ? entries[key] : undefined;
      if (!live(e)) outcome = 'missing';
      else if (e.payload.consumed) outcome = 'reused';
      else {
        entries[key] = { ...e, payload: { ...e.payload, consumed: nowSeconds() } };
        outcome = 'consumed';
      }
    });
    return outcome;
  }

  /**
   * Forgets the entries of a grant: those of `model` (oidc-provider's
   * revokeByGrantId), or with no model every token and code of it and the
   * grant itself.
   */
  async revokeGrant(grantId: string, model?: string) {
    await this.short.deleteWhere('grantId', grantId, model ? [model] : undefined);
    const models = model ? [model] : [...PERSISTABLE];
    const index = this.persistedIndex();
    const keys = models.filter((m) => PERSISTABLE.has(m))
      .flatMap((m) => [...(index.get(indexKey(m, 'grantId', grantId)) ?? [])].map((id) => docKey(m, id)));
    if (!model && this.persisted('Grant', grantId)) keys.push(docKey('Grant', grantId));
    if (!keys.length) return;
    const inModels = new Set(models);
    await this.write((entries) => {
      for (const key of keys) delete entries[key];
      // And any saved since the index was read (a token rotated meanwhile).
      for (const [key, e] of Object.entries(entries)) {
        if (e.payload.grantId === grantId && inModels.has(splitKey(key)[0])) delete entries[key];
      }
    });
  }

  /** Forgets every entry of an account (a scan of the document: for administrative changes such as deleting a user). */
  async removeAccount(accountId: string) {
    const match = (p: AdapterPayload) => p.accountId === accountId;
    await this.short.deleteWhere('accountId', accountId);
    if (Object.values(this.doc()?.entries ?? {}).some((e) => match(e.payload))) {
      await this.write((entries) => {
        for (const [key, e] of Object.entries(entries)) if (match(e.payload)) delete entries[key];
      });
    }
  }

  /**
   * Applies `change` to the document. Changes that arrive while a write is
   * under way wait, and go together in the next one: under load the document
   * is rewritten once per batch, not once per change. Expired entries are
   * dropped on each write, and signed-in sessions beyond the bound (those
   * that expire first). The document is small next to the data folder: it
   * holds only what signed-in users made (grants, refresh tokens, sessions),
   * so its size follows real sign-ins, never anonymous traffic.
   */
  private write(change: Change): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ change, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  private async flush() {
    try {
      while (this.queue.length) {
        const batch = this.queue.splice(0);
        const failed = new Map<Queued, unknown>();
        try {
          await this.store.update<StateDoc>('private', OIDC_STATE, (doc) => {
            const now = nowSeconds();
            const entries: Record<string, Entry> = Object.create(null);
            for (const [k, e] of Object.entries(doc?.entries ?? {})) {
              // Anonymous sessions written by earlier releases go: they belong in memory.
              if (live(e, now) && persistent(splitKey(k)[0], e.payload)) entries[k] = e;
            }
            for (const q of batch) {
              try {
                q.change(entries);
              } catch (e) {
                failed.set(q, e);
              }
            }
            this.boundSessions(entries);
            return { entries: { ...entries } };
          });
        } catch (e) {
          for (const q of batch) q.reject(e);
          continue;
        }
        for (const q of batch) {
          if (failed.has(q)) q.reject(failed.get(q));
          else q.resolve();
        }
      }
    } finally {
      this.flushing = undefined;
    }
  }

  private boundSessions(entries: Record<string, Entry>) {
    const sessions = Object.keys(entries).filter((k) => k.startsWith('Session:'));
    if (sessions.length <= this.maxEntries) return;
    const byExpiry = sessions.sort((a, b) => (entries[a].exp ?? Infinity) - (entries[b].exp ?? Infinity));
    for (const k of byExpiry.slice(0, sessions.length - this.maxEntries)) delete entries[k];
  }
}

const indexKey = (model: string, field: LookupField, value: string) => `${model}\0${field}\0${value}`;

function addIndex(index: Map<string, Set<string>>, model: string, id: string, e: Entry) {
  for (const field of LOOKUP_FIELDS) {
    const value = e.payload[field];
    if (typeof value !== 'string') continue;
    const k = indexKey(model, field, value);
    let ids = index.get(k);
    if (!ids) index.set(k, (ids = new Set()));
    ids.add(id);
  }
}


const copy = (p: AdapterPayload | undefined) => (p ? structuredClone(p) : undefined);

export interface AdapterOptions {
  /** The error for a second consumption of a code or refresh token (oidc-provider's InvalidGrant). */
  reused?: (model: string) => Error;
}

export function adapterFactory(storage: OidcStorage, options: AdapterOptions = {}) {
  const reused = options.reused ?? ((model: string) => new Error(`${model} already used`));
  return (model: string): Adapter => ({
    async upsert(id, payload, expiresIn) {
      await storage.set(model, id, { payload: structuredClone(payload), ...(expiresIn ? { exp: nowSeconds() + expiresIn } : {}) });
    },
    // Copies: the provider may change what it gets, and stored documents are shared.
    async find(id) {
      return copy((await storage.get(model, id))?.payload);
    },
    async findByUid(uid) {
      return copy((await storage.findBy(model, 'uid', uid))?.payload);
    },
    async findByUserCode(userCode) {
      return copy((await storage.findBy(model, 'userCode', userCode))?.payload);
    },
    async consume(id) {
      const grantId = (await storage.get(model, id))?.payload.grantId;
      if ((await storage.consume(model, id)) !== 'reused') return;
      // Lost the race to a parallel request with the same code or token: that is reuse, as for a later one.
      if (typeof grantId === 'string') await storage.revokeGrant(grantId);
      throw reused(model);
    },
    async destroy(id) {
      await storage.destroy(model, id);
    },
    async revokeByGrantId(grantId) {
      await storage.revokeGrant(grantId, model);
    },
  });
}

/** The storage of the provider running on `store`, for tests and the benchmark (undefined without one). */
const running = new WeakMap<Store, OidcStorage>();
export const oidcStorageOf = (store: Store) => running.get(store);
export function registerStorage(store: Store, storage: OidcStorage) {
  running.set(store, storage);
  return storage;
}

/** Forgets everything the provider holds for an account (sessions, grants, refresh tokens): used when it is deleted or its password changes. */
export async function revokeAccount(store: Store, accountId: string) {
  await (running.get(store) ?? new OidcStorage(store)).removeAccount(accountId);
}
