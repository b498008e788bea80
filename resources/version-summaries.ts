// What lists of older versions filter, count and sort on, kept in memory per
// version: every top-level field holding a short scalar (the ID, name,
// lastUpdatedBy, public, deleted, version, lastUpdatedOn…). Stored versions
// never change, so a summary, once known, stays right; it is noted when this
// process writes a version and when a list reads one. A list then reads only
// the versions of its page, not the whole history (resources/list.ts).
// Summaries of versions written before a restart (or by another replica) are
// learnt the first time a list needs them.
import type { StoredVersion } from './types.ts';

/** Longer text is left out of the summary (descriptions, comments): a list filtering on it reads the version. */
const MAX_KEPT_CHARS = 256;

/** Stands for a value the summary does not hold (an object, a long text). */
const LEFT_OUT: unique symbol = Symbol('left out');

export type Summary = Readonly<Record<string, unknown>>;

function summarize(version: StoredVersion): Summary {
  const summary: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(version)) {
    const scalar = value === null || typeof value === 'number' || typeof value === 'boolean' ||
      (typeof value === 'string' && value.length <= MAX_KEPT_CHARS);
    summary[field] = scalar ? value : LEFT_OUT;
  }
  return Object.freeze(summary);
}

export class VersionSummaries {
  private byId = new Map<string, Map<number, Summary>>();

  note(id: string, version: StoredVersion): Summary {
    let versions = this.byId.get(id);
    if (!versions) this.byId.set(id, (versions = new Map()));
    const summary = summarize(version);
    versions.set(version.version, summary);
    return summary;
  }

  /** The summary of version `n` when it holds every one of `fields`; undefined when the version must be read. */
  get(id: string, n: number, fields: readonly string[]): Summary | undefined {
    const summary = this.byId.get(id)?.get(n);
    if (!summary || fields.some((field) => summary[field] === LEFT_OUT)) return undefined;
    return summary;
  }
}
