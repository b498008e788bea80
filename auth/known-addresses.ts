// Known addresses kept with the data folder (docs/api.md: Login throttling):
// the addresses each username signed in from within knownAddressDays, which
// strangers' failures never lock out, survive a restart. A private document
// rewritten when a pair becomes known, is forgotten, or is renewed by a day or
// more; writes follow one another, the latest state last. A store shared by
// replicas (PostgreSQL) keeps them in its shared counters instead (throttle.ts).
import type { Store } from '../store/types.ts';
import type { KnownKeeper, KnownSnapshot } from './throttle-known.ts';

const DOCUMENT = 'known-addresses';

export function knownAddressKeeper(store: Store): KnownKeeper {
  let pending: KnownSnapshot | undefined;
  let writing = false;
  const write = () => {
    if (writing || !pending) return;
    const next = pending;
    pending = undefined;
    writing = true;
    // A failing disk keeps the previous document: the addresses stay known in memory until the next start.
    store.update<KnownSnapshot>('private', DOCUMENT, () => next).catch(() => undefined).finally(() => {
      writing = false;
      write();
    });
  };
  return {
    initial: store.get<KnownSnapshot>('private', DOCUMENT),
    changed(known) {
      pending = known;
      write();
    },
  };
}
