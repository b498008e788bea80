// The thread bench/render-fresh.ts draws its fresh geographic picture on
// (fresh-geographic.ts): TypeScript, so tsx's loader is registered first,
// as on a render thread (pool/thread.mjs).
import { register } from 'tsx/esm/api';

register();
await import('./fresh-geographic.ts');
