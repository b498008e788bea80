// oidc-provider 9 prints "Unsupported runtime" on every start under Node 20
// (its support policy names Node 22 and later LTS releases), though it runs
// there: the service's engines allow Node 20.19+, and the whole OIDC test
// suite passes on Node 20. The line reads like a fault to whoever starts the
// service, so this module, imported just before oidc-provider, drops exactly
// that one line; every other warning is printed as before.
const NOTICE = 'oidc-provider WARNING: Unsupported runtime. Use Node.js v22.x LTS, or a later LTS release.';

const warn = console.warn.bind(console);
console.warn = (...args: unknown[]) => {
  // The notice may come wrapped in terminal colour codes (stderr a TTY).
  if (args.length === 1 && typeof args[0] === 'string' && args[0].replace(/\x1b\[[0-9;]*m/g, '') === NOTICE) return;
  warn(...args);
};
