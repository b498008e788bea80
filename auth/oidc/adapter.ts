// Storage for the built-in provider's models (oidc-provider's adapter
// contract). Grants, refresh tokens and sessions must survive a restart, so
// they live in one private document (`private/oidc-state.json`), expired
// entries pruned on each write. Short-lived artifacts (interactions,
// authorization codes, replay markers, access-token records) stay in memory:
// losing them on restart only means logging in again.
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Store } from '../../store/types.ts';

export const OIDC_STATE = 'oidc-state';
const PERSISTED = new Set(['Grant', 'RefreshToken', 'Session']);

interface Entry {
  payload: AdapterPayload;
  /** Epoch seconds; absent for no expiry. */
  exp?: number;
}

interface StateDoc {
  entries: Record<string, Entry>;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);
const live = (e: Entry | undefined) => !!e && (e.exp === undefined || e.exp > nowSeconds());

/** One instance per provider; adapters of every model share it, so revocation by grant spans them all. */
export class OidcStorage {
  private memory = new Map<string, Entry>();

  constructor(private store: Store) {}

  private persisted(): Record<string, Entry> {
    return this.store.get<StateDoc>('private', OIDC_STATE)?.entries ?? {};
  }

  get(key: string): Entry | undefined {
    const e = this.memory.get(key) ?? this.persisted()[key];
    return live(e) ? e : undefined;
  }

  async set(model: string, key: string, entry: Entry | undefined) {
    if (!PERSISTED.has(model)) {
      if (entry) this.memory.set(key, entry);
      else this.memory.delete(key);
      this.sweepMemory();
      return;
    }
    await this.write((entries) => {
      if (entry) entries[key] = entry;
      else delete entries[key];
    });
  }

  /** Every live entry whose payload matches, with its key. */
  filter(match: (p: AdapterPayload, key: string) => boolean): Array<[string, Entry]> {
    const all = [...this.memory.entries(), ...Object.entries(this.persisted())];
    return all.filter(([key, e]) => live(e) && match(e.payload, key));
  }

  async removeWhere(match: (p: AdapterPayload) => boolean) {
    for (const [key, e] of this.memory) if (match(e.payload)) this.memory.delete(key);
    if (Object.values(this.persisted()).some((e) => match(e.payload))) {
      await this.write((entries) => {
        for (const [key, e] of Object.entries(entries)) if (match(e.payload)) delete entries[key];
      });
    }
  }

  private async write(change: (entries: Record<string, Entry>) => void) {
    await this.store.update<StateDoc>('private', OIDC_STATE, (doc) => {
      const entries: Record<string, Entry> = Object.create(null);
      for (const [k, e] of Object.entries(doc?.entries ?? {})) if (live(e)) entries[k] = e;
      change(entries);
      return { entries: { ...entries } };
    });
  }

  private sweepMemory() {
    if (this.memory.size < 1000) return;
    for (const [key, e] of this.memory) if (!live(e)) this.memory.delete(key);
  }
}

const copy = (p: AdapterPayload | undefined) => (p ? structuredClone(p) : undefined);

export function adapterFactory(storage: OidcStorage) {
  return (model: string): Adapter => {
    const key = (id: string) => `${model}:${id}`;
    return {
      async upsert(id, payload, expiresIn) {
        await storage.set(model, key(id), { payload: structuredClone(payload), ...(expiresIn ? { exp: nowSeconds() + expiresIn } : {}) });
      },
      // Copies: the provider may change what it gets, and stored documents are shared.
      async find(id) {
        return copy(storage.get(key(id))?.payload);
      },
      async findByUid(uid) {
        return copy(storage.filter((p, k) => k.startsWith(`${model}:`) && p.uid === uid)[0]?.[1].payload);
      },
      async findByUserCode(userCode) {
        return copy(storage.filter((p, k) => k.startsWith(`${model}:`) && p.userCode === userCode)[0]?.[1].payload);
      },
      async consume(id) {
        const e = storage.get(key(id));
        if (e) await storage.set(model, key(id), { ...e, payload: { ...e.payload, consumed: nowSeconds() } });
      },
      async destroy(id) {
        await storage.set(model, key(id), undefined);
      },
      async revokeByGrantId(grantId) {
        await storage.removeWhere((p) => p.grantId === grantId);
      },
    };
  };
}

/** Forgets everything the provider holds for an account (sessions, grants, refresh tokens): used when it is deleted or its password changes. */
export async function revokeAccount(store: Store, accountId: string) {
  await new OidcStorage(store).removeWhere((p) => p.accountId === accountId);
}
