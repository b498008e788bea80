// A render thread's entry (pool/pool.ts starts it by path): the service's
// modules are TypeScript, which a new thread loads only once tsx's loader is
// registered on it.
import { register } from 'tsx/esm/api';

register();
await import('./thread.ts');
