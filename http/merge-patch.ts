// JSON merge patch (RFC 7396): an object's members replace the target's, a
// null member removes it, nested objects merge, anything else (arrays
// included) replaces whole. Keys are copied as own data properties, so a
// `__proto__` member is a plain key, never the result's prototype.

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** `target` with `patch` applied; neither is changed. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const result: Record<string, unknown> = {};
  const set = (key: string, value: unknown) => Object.defineProperty(result, key, { value, enumerable: true, writable: true, configurable: true });
  if (isObject(target)) for (const [key, value] of Object.entries(target)) set(key, value);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else set(key, mergePatch(Object.hasOwn(result, key) ? result[key] : undefined, value));
  }
  return result;
}
