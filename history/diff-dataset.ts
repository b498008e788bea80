// What changed between two versions of a dataset, by meaning (docs/api.md:
// Diffs): its name and query as JSON changes, and its results as the nodes
// and edges a topology of them would show - added, removed, and changed with
// each field's old and new value. Edges are the records, found by name; nodes
// are the records' circuit ends merged by the query's node_deduplication_field
// with render/topology.ts's rule, so the diff names the nodes the pictures draw.
import type { EdgeRecord } from '../datasources/types.ts';
import { text } from '../render/topology.ts';
import { deepEqual } from '../schema/json-equal.ts';
import { byCodeUnits, diffJson, ownField, type JsonChange } from './json-diff.ts';

export interface DatasetSide {
  name: string;
  query: unknown;
  /** The version's results; null when it has none (never run): no nodes, no edges. */
  records: EdgeRecord[] | null;
}

/** A node: its name (the deduplication value) and its merged circuit-end fields. */
interface NodeItem {
  name: string;
  [field: string]: unknown;
}

/** An edge: the record without its circuit ends (those are the nodes). */
interface EdgeItem {
  name: string;
  source: string;
  destination: string;
  [field: string]: unknown;
}

/** One field that differs; a field missing on one side is null there. */
interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
}

interface Changed {
  name: string;
  /** Present only for an edge whose name several records share: which of them. */
  id?: unknown;
  fields: FieldChange[];
}

interface ItemDiff<T> {
  added: T[];
  removed: T[];
  changed: Changed[];
}

export interface DatasetDiff {
  /** name and query (paths such as `query.filters.0.value`). */
  changes: JsonChange[];
  nodes: ItemDiff<NodeItem>;
  edges: ItemDiff<EdgeItem>;
}

// As render/topology.ts: these keys would reach Object.prototype if assigned.
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
/** An empty cell: a gap a later occurrence of the node fills (render/topology.ts `blank`). */
const blank = (v: unknown) => v == null || (typeof v === 'string' && v.trim() === '');
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function dedupField(query: unknown): string {
  const f = isObj(query) ? ownField(query, 'node_deduplication_field') : undefined;
  return typeof f === 'string' && f !== '' ? f : 'name';
}

/**
 * The nodes of a result set, by name. The rule of render/topology.ts
 * (buildTopology's nodeFor/copyFields, not exported): the key is the
 * endpoint's deduplication field, else its name; the first occurrence's
 * fields win and later ones fill only missing or empty ones. A record whose
 * ends are not both objects makes no node, as it makes no edge there.
 */
function nodesOf(records: readonly EdgeRecord[], dedup: string): Map<string, NodeItem> {
  const nodes = new Map<string, NodeItem>();
  for (const r of records) {
    const eps = r?.endpoints;
    if (!Array.isArray(eps) || eps.length < 2 || !isObj(eps[0]) || !isObj(eps[1])) continue;
    for (let e = 0; e < 2; e++) {
      const ep = eps[e] as Record<string, unknown>;
      const key = text(ownField(ep, dedup)) || text(ep.name);
      if (!key) continue;
      let node = nodes.get(key);
      if (!node) nodes.set(key, (node = { name: key }));
      for (const k of Object.keys(ep)) {
        // The circuit end's own name is what was merged; the node's name is its key.
        if (k === 'name' || UNSAFE_KEYS.has(k)) continue;
        if (!Object.hasOwn(node, k) || (blank(node[k]) && !blank(ep[k]))) node[k] = ep[k];
      }
    }
  }
  return nodes;
}

/** The edges of a result set, keyed by name, or by name and id for a name several records share (in either version). */
function edgesOf(records: readonly EdgeRecord[], key: RecordKey): Map<string, EdgeItem> {
  const edges = new Map<string, EdgeItem>();
  for (const r of records) {
    if (!isObj(r)) continue;
    // Rest properties copy own fields as data, so a column named "__proto__" stays a plain field.
    const { endpoints: _endpoints, ...item } = r;
    const name = (item.name = String(r.name ?? ''));
    edges.set(key(name, r.id), item as EdgeItem);
  }
  return edges;
}

/** A record's key in a diff: its name, and its id where several records of either side share the name. */
type RecordKey = (name: unknown, id: unknown) => string;

/** The record key of a diff between `sides` (the change picture keys its marks the same way). */
export function recordKeyer(...sides: (readonly EdgeRecord[])[]): RecordKey {
  const shared = sharedNames(...sides);
  return (name, id) => (shared.has(String(name ?? '')) ? `${String(name ?? '')}\u0000${String(id ?? '')}` : String(name ?? ''));
}

function sharedNames(...sides: (readonly EdgeRecord[])[]): Set<string> {
  const shared = new Set<string>();
  for (const records of sides) {
    const seen = new Set<string>();
    for (const r of records) {
      const name = String(r?.name ?? '');
      if (seen.has(name)) shared.add(name);
      seen.add(name);
    }
  }
  return shared;
}

/** Every field of `a` or `b` (but `skip`) whose values differ, sorted by field name. */
function changedFields(a: Record<string, unknown>, b: Record<string, unknown>, skip: string): FieldChange[] {
  const out: FieldChange[] = [];
  const at = (o: Record<string, unknown>, k: string) => (Object.hasOwn(o, k) && o[k] !== undefined ? o[k] : null);
  for (const k of Object.keys(a)) if (k !== skip && !deepEqual(at(a, k), at(b, k))) out.push({ field: k, from: at(a, k), to: at(b, k) });
  for (const k of Object.keys(b)) if (k !== skip && !Object.hasOwn(a, k) && at(b, k) !== null) out.push({ field: k, from: null, to: at(b, k) });
  return out.sort((x, y) => byCodeUnits(x.field, y.field));
}

const byName = <T extends { name: string; id?: unknown }>(x: T, y: T) => byCodeUnits(x.name, y.name) || byCodeUnits(String(x.id ?? ''), String(y.id ?? ''));

function compare<T extends { name: string }>(before: Map<string, T>, after: Map<string, T>, shared: ReadonlySet<string>): ItemDiff<T> {
  const out: ItemDiff<T> = { added: [], removed: [], changed: [] };
  for (const [key, a] of before) {
    const b = after.get(key);
    if (!b) {
      out.removed.push(a);
      continue;
    }
    const fields = changedFields(a, b, 'name');
    if (fields.length === 0) continue;
    out.changed.push(shared.has(a.name) ? { name: a.name, id: (b as Record<string, unknown>).id, fields } : { name: a.name, fields });
  }
  for (const [key, b] of after) if (!before.has(key)) out.added.push(b);
  out.added.sort(byName);
  out.removed.sort(byName);
  out.changed.sort(byName);
  return out;
}

export function diffDataset(before: DatasetSide, after: DatasetSide): DatasetDiff {
  const a = before.records ?? [], b = after.records ?? [];
  const shared = sharedNames(a, b);
  const key = recordKeyer(a, b);
  return {
    changes: [...diffJson(before.name, after.name, 'name'), ...diffJson(before.query, after.query, 'query')],
    nodes: compare(nodesOf(a, dedupField(before.query)), nodesOf(b, dedupField(after.query)), new Set()),
    edges: compare(edgesOf(a, key), edgesOf(b, key), shared),
  };
}
