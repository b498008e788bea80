// The drawing thread's entry (layout-client.ts starts it by path): the
// drawings are TypeScript, which a new thread loads only once tsx's loader is
// registered on it.
import { register } from 'tsx/esm/api';

register();
await import('./drawing-thread.ts');
