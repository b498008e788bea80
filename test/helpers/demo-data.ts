// A copy of the committed demo data folder for a test or benchmark to use.
// Only the committed content is copied: a local `npm start` leaves its own
// users, keys and lock file in data/, which belong to that install.
import { cp } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

export const DEMO_DATA = fileURLToPath(new URL('../../data/', import.meta.url));

export async function copyDemoData(dest: string): Promise<void> {
  await cp(DEMO_DATA, dest, { recursive: true, filter: (src) => !/[\\/](private|\.lock)$/.test(src) });
}
