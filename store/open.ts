// Opens the store the settings name: the data folder (one process owns it,
// lock.ts) or PostgreSQL (any number of replicas share it).
import type { Settings } from '../config/settings.ts';
import { openFileStore } from './file.ts';
import { openPostgresStore } from './postgres/adapter.ts';
import type { Store } from './types.ts';

export function openConfiguredStore(settings: Settings, log: (message: string) => void): Promise<Store> {
  return settings.store.backend === 'postgres'
    ? openPostgresStore(settings.store.postgres.url!, { log })
    : openFileStore(settings.data.dir, { log });
}
