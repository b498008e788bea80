// What the data folder must hold for the versioned resources beyond what the
// store checks itself: a version's ID field names its folder. The folder is
// plain files that people edit, merge and copy; a resource breaking the rule
// is not served (503 naming the file, collection.ts) and is reported here so
// /healthz can say the service is degraded, while everything else is served.
import type { Store, UnreadableFile } from '../store/types.ts';
import { misfiled } from './collection.ts';
import type { ResourceDescriptor, StoredVersion } from './types.ts';

/** The resources whose latest version names another ID than its folder. */
export function storedShapeProblems(store: Store, descriptors: readonly ResourceDescriptor[]): UnreadableFile[] {
  const problems: UnreadableFile[] = [];
  for (const kind of descriptors) {
    for (const [key, head] of store.heads<StoredVersion>(kind.collection)) {
      if (head[kind.idField] === key) continue;
      problems.push({ collection: kind.collection, key, where: `${kind.collection}/${key}/v${head.version}.json`, message: misfiled(kind, key, head) });
    }
  }
  return problems;
}
