// Endpoint strings: `<kind>?<params>`, e.g.
// `spreadsheet?sheet_id=rne-backbone&sheet_name=Circuits`. Built with
// URLSearchParams and parsed with it, so `+` and `%20` both read as a space.
import { validationFailed } from '../errors.ts';

export function formatEndpoint(kind: string, params: Record<string, string>): string {
  return `${kind}?${new URLSearchParams(params)}`;
}

export function parseEndpoint(endpoint: string): { kind: string; params: URLSearchParams } {
  const mark = endpoint.indexOf('?');
  const kind = (mark < 0 ? endpoint : endpoint.slice(0, mark)).trim();
  return { kind, params: new URLSearchParams(mark < 0 ? '' : endpoint.slice(mark + 1)) };
}

/** A 422 about query.endpoint, with the path a client can point at. */
export const endpointProblem = (message: string) =>
  validationFailed(`query.endpoint: ${message}`, [{ path: 'query.endpoint', message }]);

/**
 * The named parameters, each exactly once and non-empty, and no others.
 * Values are checked to be printable (no control characters).
 */
export function requireParams<K extends string>(params: URLSearchParams, names: readonly K[]): Record<K, string> {
  for (const key of new Set(params.keys())) {
    if (!(names as readonly string[]).includes(key)) {
      throw endpointProblem(`unknown parameter ${JSON.stringify(key)}; expected ${names.join(' and ')}`);
    }
  }
  const out = {} as Record<K, string>;
  for (const name of names) {
    const values = params.getAll(name);
    if (values.length !== 1 || values[0] === '') {
      throw endpointProblem(values.length > 1 ? `parameter ${name} is given more than once` : `parameter ${name} is missing or empty`);
    }
    // (a control-character pattern on purpose: see biome.jsonc)
    if (/[\u0000-\u001f\u007f]/.test(values[0])) throw endpointProblem(`parameter ${name} contains control characters`);
    out[name] = values[0];
  }
  return out;
}
