// Opens the store the settings name: the data folder (one process owns it,
// lock.ts) or PostgreSQL (any number of replicas share it). The PostgreSQL
// adapter and its driver are loaded only when the settings name it.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Settings } from '../config/settings.ts';
import { openFileStore } from './file.ts';
import type { Store } from './types.ts';

export async function openConfiguredStore(settings: Settings, log: (message: string) => void): Promise<Store> {
  if (settings.store.backend !== 'postgres') return openFileStore(settings.data.dir, { log });
  const { openPostgresStore } = await import('./postgres/adapter.ts');
  return openPostgresStore(settings.store.postgres.url!, { log });
}

/**
 * The data folder's absolute path when the settings name a folder that does
 * not exist yet (the file store creates it): a first start, or a mistyped
 * MTS_DATA_DIR about to begin a fresh install beside the real one, which the
 * start must say loudly. Undefined with PostgreSQL or an existing folder.
 */
export function missingDataFolder(settings: Settings): string | undefined {
  if (settings.store.backend === 'postgres') return undefined;
  const dir = path.resolve(settings.data.dir);
  return existsSync(dir) ? undefined : dir;
}
