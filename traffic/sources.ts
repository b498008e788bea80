// The metrics sources of the settings (`metrics.sources.<name>`), built once
// at start: credential files are read here, and a source that cannot be
// built stops the service with a message naming its key. The `demo` source
// (synthetic) always exists unless the settings define one of that name.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SettingsError, type Settings } from '../config/settings.ts';
import { durationSeconds } from './duration.ts';
import { prometheusSource } from './prometheus.ts';
import { SNMP_NAMES } from './promql.ts';
import { syntheticSource } from './synthetic.ts';
import type { TrafficSource } from './types.ts';

type SourceSettings = Settings['metrics']['sources'][string];

const DEMO_SOURCE = 'demo';

/** A secret's file, read now; its content is never shown, its path is. */
function secret(file: string, key: string, baseDir: string): string {
  try {
    const value = readFileSync(path.resolve(baseDir, file), 'utf8').trim();
    if (value === '') throw new Error('the file is empty');
    return value;
  } catch (e) {
    throw new SettingsError(`invalid settings:\n  ${key}: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
}

function build(name: string, s: SourceSettings, baseDir: string): TrafficSource {
  const key = `metrics.sources.${name}`;
  const seconds = (field: 'window' | 'step' | 'timeout') => {
    const value = durationSeconds(s[field]);
    if (value === undefined || value < 1 || value > 86_400) {
      throw new SettingsError(`invalid settings:\n  ${key}.${field}: expected a duration from 1s to 24h, such as 60s or 5m (got ${JSON.stringify(s[field])})`);
    }
    return value;
  };
  const step = seconds('step');
  if (s.kind === 'synthetic') return syntheticSource(name, step);
  let authorization: string | undefined;
  if (s.bearerTokenFile) authorization = `Bearer ${secret(s.bearerTokenFile, `${key}.bearerTokenFile`, baseDir)}`;
  if (s.basicAuth) {
    if (authorization) throw new SettingsError(`invalid settings:\n  ${key}: expected bearerTokenFile or basicAuth, not both`);
    const password = secret(s.basicAuth.passwordFile, `${key}.basicAuth.passwordFile`, baseDir);
    authorization = `Basic ${Buffer.from(`${s.basicAuth.username}:${password}`).toString('base64')}`;
  }
  return prometheusSource({
    name, url: s.url as string, authorization, job: s.job, names: { ...SNMP_NAMES, ...s.metrics },
    windowSeconds: seconds('window'), stepSeconds: step, timeoutMs: seconds('timeout') * 1000,
  });
}

/** The sources by name, `demo` included. */
export function createTrafficSources(settings: Settings, baseDir = process.cwd()): Map<string, TrafficSource> {
  const sources = new Map<string, TrafficSource>([[DEMO_SOURCE, syntheticSource(DEMO_SOURCE, 60)]]);
  for (const [name, s] of Object.entries(settings.metrics.sources)) sources.set(name, build(name, s, baseDir));
  return sources;
}
