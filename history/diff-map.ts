// What changed between two versions of a map, by meaning (docs/api.md: Diffs):
// its content fields - name, public, configuration (layers by index, e.g.
// `configuration.layers.1.color`) and any other field a client stored - as
// `changes`, and its overrides apart as `overrides`, because an editor shows
// "moved node X" separately from "changed the map's look". The version
// stamps differ between any two versions and say nothing about content.
import { byCodeUnits, diffJson, ownField as own, type JsonChange } from './json-diff.ts';

/** Fields every stored version carries that record when and by whom, not what. */
const STAMP_FIELDS: ReadonlySet<string> = new Set(['mapId', 'version', 'lastUpdatedBy', 'lastUpdatedOn', 'change', 'deleted']);

export interface MapDiff {
  /** name, public, configuration and other content fields; paths start with the field name. */
  changes: JsonChange[];
  /** The `overrides` field; paths start with `overrides.`. */
  overrides: JsonChange[];
}

/**
 * The content fields of two versions that are not stamps nor in `skip`, in
 * sorted order. Datasets and templates reuse it with their own identity stamp
 * (datasetId, templateId) in `skip`.
 */
export function contentFields(before: Record<string, unknown>, after: Record<string, unknown>, skip: ReadonlySet<string>): string[] {
  const keys = new Set<string>();
  for (const side of [before, after]) {
    for (const k of Object.keys(side ?? {})) if (!STAMP_FIELDS.has(k) && !skip.has(k)) keys.add(k);
  }
  return [...keys].sort(byCodeUnits);
}

export function diffMap(before: Record<string, unknown>, after: Record<string, unknown>): MapDiff {
  const changes: JsonChange[] = [];
  for (const k of contentFields(before, after, new Set(['overrides']))) changes.push(...diffJson(own(before, k), own(after, k), k));
  return { changes, overrides: diffJson(own(before, 'overrides'), own(after, 'overrides'), 'overrides') };
}
