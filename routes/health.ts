// GET /healthz: 200 once the store is loaded (the app only exists after that).
// `status` is "ok", or "degraded" with the files that cannot be served: the
// service still answers for everything else, so a load balancer should keep
// sending traffic while someone repairs the files named.
import { declarer, json, type Operation } from '../http/operation.ts';
import type { UnreadableFile } from '../store/types.ts';

type Deps = { problems: () => readonly UnreadableFile[] };
const route = declarer<Deps>();

export const HEALTH: Operation<Deps> = route({
  method: 'get', path: '/healthz', tag: 'service', summary: 'Health: 200 once the data folder is loaded', scope: null,
  answers: { 200: json('{status: "ok"}, or "degraded" with the stored files that cannot be served (the rest is served)') },
  handle: ({ problems }) => (c) => {
    const found = problems();
    if (found.length === 0) return c.json({ status: 'ok' });
    return c.json({ status: 'degraded', problems: found.map((p) => ({ resource: `${p.collection}/${p.key}`, file: p.where, problem: p.message })) });
  },
});
