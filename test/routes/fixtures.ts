// Shared bits of the resource route tests: a clock the test moves, sample
// bodies, and a started app with tokens of each scope.
import { makeTestApp, type TestApp, type TestAppOptions } from '../helpers/app.ts';

/** A clock that advances one second per reading, from a fixed start. */
export function steppingClock(start = '2026-11-22T10:00:00.000Z') {
  let t = Date.parse(start);
  return () => {
    const d = new Date(t);
    t += 1000;
    return d;
  };
}

/** sampleMap's configuration as reads show it: its datasetId layer with the equivalent mapjsonUrl (resources/maps.ts). */
export const shownConfiguration = (baseUrl: string) => {
  const { configuration } = sampleMap();
  return { ...configuration, layers: configuration.layers.map((l) => ({ ...l, mapjsonUrl: `${baseUrl}/api/v1/output/dataset/${l.datasetId}/geographic/static/` })) };
};

export const sampleMap = (name = 'Backbone', extra: Record<string, unknown> = {}) => ({
  name,
  configuration: {
    initialViewStrategy: 'manual',
    viewport: { center: { lat: 39.5, lng: -98.35 }, zoom: 4 },
    background: '#eeeeee',
    showLegend: true,
    layers: [{ name: 'core', color: '#1f77b4', datasetId: 'AbCdEf1', layout: 'geographic' }],
  },
  overrides: {},
  ...extra,
});

export const sampleTemplate = (name = 'Square') => ({
  name,
  template: '<g data-width="10" data-height="10"><rect x="-5" y="-5" width="10" height="10"/></g>',
});

export interface Started extends TestApp {
  /** Tokens: every scope, and one per scope kind. */
  all: string;
  read: string;
  write: string;
  publish: string;
  /** A token with read and write only (no publish). */
  editor: string;
}

export async function start(options: TestAppOptions = {}): Promise<Started> {
  const t = await makeTestApp({ now: steppingClock(), ...options });
  const s = t.settings.auth.scopes;
  const [all, read, write, publish, editor] = await Promise.all([
    t.token(), t.token(s.read), t.token(s.write), t.token(s.publish), t.token(`${s.read} ${s.write}`),
  ]);
  return Object.assign(t, { all, read, write, publish, editor });
}

export async function body<T = any>(res: Response): Promise<T> {
  const text = await res.text();
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new Error(`not JSON (${res.status}): ${text.slice(0, 200)}`);
  }
}

/** Creates a map and returns its full object. */
export async function createMap(t: Started, name = 'Backbone', extra: Record<string, unknown> = {}) {
  const res = await t.request('/api/v1/map/', { method: 'POST', token: t.write, json: sampleMap(name, extra) });
  if (res.status !== 201) throw new Error(`create map: ${res.status} ${await res.text()}`);
  return body(res);
}
