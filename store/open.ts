// Opens the store the settings name: the data folder (one process owns it,
// lock.ts) or PostgreSQL (any number of replicas share it). The PostgreSQL
// adapter and its driver are loaded only when the settings name it.
import type { Settings } from '../config/settings.ts';
import { openFileStore } from './file.ts';
import type { Store } from './types.ts';

export async function openConfiguredStore(settings: Settings, log: (message: string) => void): Promise<Store> {
  if (settings.store.backend !== 'postgres') return openFileStore(settings.data.dir, { log });
  const { openPostgresStore } = await import('./postgres/adapter.ts');
  return openPostgresStore(settings.store.postgres.url!, { log });
}
