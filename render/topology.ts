// Records (edge rows) + query settings -> Terranova topology JSON.
// Rules (docs/render.md: Topology JSON): circuit ends with equal values of
// node_deduplication_field are one node (fallback: the circuit-end name);
// node_group_criteria builds group nodes with `children`, outermost first;
// circuits between the same two nodes stay separate edges with unique names
// and a parallel index; geographic layout keeps the data's coordinates (and
// is 422 when no node has any: never a picture of everything at 0,0),
// logical layout comes from logical-layout.ts.
import type { EdgeRecord } from '../datasources/types.ts';
import type { DatasetQuery } from '../schema/dataset.ts';
import type { LatLng, Layout, Topology, TopologyEdge, TopologyNode } from './types.ts';
import { compileTemplate, DEFAULT_TEMPLATES, type CompiledTemplate } from '../svg-safety/template.ts';
import { fillMissingCoordinates, spreadGroups } from './group-layout.ts';
import { layoutLogical } from './logical-layout.ts';
import { askedHierarchy, hierarchyOf } from './roles.ts';
import { FragmentError } from '../svg-safety/parse.ts';
import { validationFailed } from '../errors.ts';
import { centroid, continuousLng, nearLng, parallelMidpoint, round6 } from './geometry.ts';

export interface BuildOptions {
  /** Topology name: the dataset's name. */
  name: string;
  layout: Layout;
  query?: Partial<Pick<DatasetQuery, 'node_deduplication_field' | 'node_group_criteria' | 'node_group_layout' | 'role_field' | 'role_order' | 'layer_direction'>>;
  /** Template markup (a stored template's `template`); the default for the layout when absent. */
  template?: string | null;
  /** Terranova's `layer` value; default "tail". */
  layer?: string;
}

const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const RECORD_KEYS = new Set(['id', 'name', 'source', 'destination', 'endpoints']);

interface NodeAcc {
  node: TopologyNode;
  located: boolean;
  /** Group values of the first circuit-end occurrence that has them, outermost first. */
  groups: (string | null)[];
}

const compiled = new Map<string, CompiledTemplate>();
/** Templates are compiled once per distinct markup (bounded cache). */
function templateFor(markup: string): CompiledTemplate {
  let t = compiled.get(markup);
  if (!t) {
    try {
      t = compileTemplate(markup);
    } catch (e) {
      // Stored templates were checked on save; this guards data written by other means.
      if (e instanceof FragmentError) throw validationFailed(`node template ${e.message}`);
      throw e;
    }
    if (compiled.size > 50) compiled.delete(compiled.keys().next().value as string);
    compiled.set(markup, t);
  }
  return t;
}

/** A node drawn with a template (default: the layout's): meta gains `svg` and its computed size. */
export function drawNode(node: TopologyNode, markup: string): TopologyNode {
  const out = templateFor(markup).render({ name: node.name, endpoint_name: node.meta.endpoint_name, meta: node.meta });
  return { ...node, meta: { ...node.meta, svg: out.svg, computed_width: out.width, computed_height: out.height } };
}

export function text(v: unknown): string {
  if (v == null) return '';
  if (typeof v === 'string') return v.trim();
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return v.map(text).join(', ');
  return '';
}

function num(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

/** An empty cell: a gap that a later occurrence of the node fills. */
const blank = (v: unknown) => v == null || (typeof v === 'string' && v.trim() === '');

function copyFields(target: Record<string, unknown>, source: Record<string, unknown>, skip?: Set<string>): void {
  for (const k of Object.keys(source)) {
    if (UNSAFE_KEYS.has(k) || skip?.has(k) || (Object.hasOwn(target, k) && (!blank(target[k]) || blank(source[k])))) continue;
    target[k] = source[k];
  }
}

function capacityOf(r: EdgeRecord): unknown {
  for (const k of ['capacity', 'circuit_speed', 'speed', 'bandwidth']) {
    if (r[k] == null || r[k] === '') continue;
    return num(r[k]) ?? r[k];
  }
  return undefined;
}

export async function buildTopology(records: readonly EdgeRecord[], options: BuildOptions): Promise<Topology> {
  const dedup = options.query?.node_deduplication_field || 'name';
  const criteria = options.query?.node_group_criteria ?? [];
  const nodes = new Map<string, NodeAcc>();

  // Own fields only: a field named "__proto__" or "toString" must not read Object.prototype.
  const field = (ep: Record<string, unknown>, name: string) => (Object.hasOwn(ep, name) ? ep[name] : undefined);
  const nodeFor = (ep: Record<string, unknown>): string => {
    const key = text(field(ep, dedup)) || text(ep.name);
    let acc = nodes.get(key);
    if (!acc) {
      const meta: Record<string, unknown> = {};
      acc = { node: { name: key, coordinate: [0, 0], meta }, located: false, groups: criteria.map((c) => text(field(ep, c)) || null) };
      nodes.set(key, acc);
      // The node stands for every circuit end deduplicated into it, so its label is the node name.
      meta.endpoint_name = key;
    }
    copyFields(acc.node.meta, ep);
    for (let i = 0; i < criteria.length; i++) acc.groups[i] ??= text(field(ep, criteria[i])) || null;
    const lat = num(ep.latitude), lng = num(ep.longitude);
    if (!acc.located && lat !== null && lng !== null && Math.abs(lat) <= 90 && Math.abs(lng) <= 180) {
      acc.node.coordinate = [lat, lng];
      acc.located = true;
    }
    return key;
  };

  const edges: TopologyEdge[] = [];
  const usedNames = new Map<string, number>(); // per base name: how many of its numbers are handed out
  const edgeNames = new Set<string>();
  const pairs = new Map<string, TopologyEdge[]>();
  for (const r of records) {
    const eps = r?.endpoints;
    if (!Array.isArray(eps) || eps.length < 2 || typeof eps[0] !== 'object' || typeof eps[1] !== 'object' || !eps[0] || !eps[1]) continue;
    const a = nodeFor(eps[0]);
    const b = nodeFor(eps[1]);
    if (!a || !b) continue;
    const base = text(r.name) || text(r.id) || `${a} - ${b}`;
    // A repeated name gets (2), (3)…, skipping any a row already has: overrides find edges by name.
    let n = usedNames.get(base) ?? 0;
    let name: string;
    do name = ++n === 1 ? base : `${base} (${n})`;
    while (edgeNames.has(name));
    usedNames.set(base, n);
    edgeNames.add(name);
    const meta: TopologyEdge['meta'] = { endpoint_identifiers: {} };
    copyFields(meta, r, RECORD_KEYS);
    const cap = capacityOf(r);
    if (cap !== undefined) meta.capacity = cap;
    meta.endpoint_identifiers = { names: [a, b], edge_id: [r.id ?? null], edge_name: [r.name ?? null] };
    const edge: TopologyEdge = { name, coordinates: [], meta };
    edges.push(edge);
    const pk = a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`;
    pairs.set(pk, [...(pairs.get(pk) ?? []), edge]);
  }
  for (const group of pairs.values()) {
    if (group.length < 2) continue;
    group.forEach((e, i) => {
      Object.assign(e.meta, { parallel_index: i, parallel_count: group.length });
    });
  }

  const leaves = [...nodes.values()];
  // A map of everything at 0,0 helps nobody: say what to add instead (docs/api.md: Dataset output).
  if (options.layout === 'geographic' && leaves.length > 0 && !leaves.some((l) => l.located)) throw noPositions(options.name, leaves.length);
  const markup = options.template ?? DEFAULT_TEMPLATES[options.layout].template;
  const tpl = templateFor(markup);
  const renderNode = (n: TopologyNode) => {
    const out = tpl.render({ name: n.name, endpoint_name: n.meta.endpoint_name, meta: n.meta });
    n.meta.svg = out.svg;
    n.meta.computed_width = out.width;
    n.meta.computed_height = out.height;
  };
  for (const l of leaves) renderNode(l.node);

  const groups = buildGroups(leaves, criteria);
  const byName = new Map(leaves.map((l) => [l.node.name, l.node] as const));
  let bends: Map<TopologyEdge, LatLng[]> | undefined;
  let pixelsPerDegree = 0;
  if (options.layout === 'logical') {
    const drawn = leaves.map((l) => l.node);
    ({ bends, pixelsPerDegree } = await layoutLogical(drawn, edges, groups, hierarchyOf(drawn, options.query)));
  } else {
    fillMissingCoordinates(leaves, edges, byName);
    if (options.query?.node_group_layout) spreadGroups(groups, byName, options.query.node_group_layout);
  }
  placeGroups(groups, byName);
  for (const g of groups) renderNode(g);

  // A layer whose content crosses the antimeridian gets one continuous longitude range, nodes and edges
  // alike (Tokyo at -220.3 beside Los Angeles at -118.2): a Leaflet-based client (ESnet's map component)
  // joins points as given, so it then draws a Tokyo-Los Angeles circuit across the Pacific, as our SVG
  // does, and every edge ends on its nodes' markers.
  const placed = [...byName.values(), ...groups];
  const shift = options.layout === 'geographic' ? continuousLng(placed.map((n) => n.coordinate[1])) : (lng: number) => lng;
  for (const n of placed) n.coordinate = [round6(n.coordinate[0]), round6(shift(n.coordinate[1]))];
  for (const e of edges) {
    const [a, b] = e.meta.endpoint_identifiers.names as string[];
    const pa = byName.get(a)!.coordinate, pb = byName.get(b)!.coordinate;
    const mid = bends?.get(e) ?? [];
    const k = Number(e.meta.parallel_count ?? 1);
    if (mid.length === 0 && k > 1 && a !== b) mid.push(parallelMidpoint(pa, pb, Number(e.meta.parallel_index), k));
    // The ends are the nodes' own coordinates; bends sit by the middle of the two, on the same range.
    const middle = (pa[1] + pb[1]) / 2;
    e.coordinates = [pa, ...mid.map(([la, ln]): LatLng => [round6(la), round6(nearLng(middle, ln))]), pb];
  }

  return {
    name: options.name,
    layer: options.layer ?? 'tail',
    pathLayout: options.layout === 'logical'
      ? { type: 'curveLinear', tension: 0.6, pixelsPerDegree: round6(pixelsPerDegree), ...withHierarchy(options.query) }
      : { type: 'curveCardinal', tension: 0.6 },
    nodes: [...leaves.map((l) => l.node), ...groups],
    edges,
  };
}

/** The layers the query asked for, kept in a logical topology's pathLayout (roles.ts). */
function withHierarchy(query: BuildOptions['query']) {
  const hierarchy = askedHierarchy(query);
  return hierarchy ? { hierarchy } : {};
}

/** 422 for a geographic output in which no node has coordinates, naming the ways to give them. */
function noPositions(name: string, count: number) {
  return validationFailed(`geographic output of ${JSON.stringify(name)}: none of its ${count} node${count === 1 ? ' has' : 's have'} ` +
    'coordinates, so there is nothing to place on a map. Give the nodes positions: a Nodes (or Sites, or Locations) tab ' +
    'in the workbook with name, latitude and longitude columns (lat, lon, lng and long work too), or source_latitude, ' +
    'source_longitude, destination_latitude and destination_longitude columns in the rows; or ask for the logical layout.');
}

/** Group nodes, outermost level first; names are the criterion value, disambiguated on collision. */
function buildGroups(leaves: NodeAcc[], criteria: string[]): TopologyNode[] {
  if (criteria.length === 0) return [];
  const taken = new Set(leaves.map((l) => l.node.name));
  const byKey = new Map<string, TopologyNode>();
  const levels: TopologyNode[][] = criteria.map(() => []);
  // Per group: its level, its children's names (for O(1) membership) and its leaves' meta.
  const members = new Map<TopologyNode, { lvl: number; children: Set<string>; metas: Record<string, unknown>[] }>();
  for (const leaf of leaves) {
    let child = leaf.node.name;
    for (let lvl = criteria.length - 1; lvl >= 0; lvl--) {
      const value = leaf.groups[lvl];
      if (value === null) continue;
      // A group is its value under its outer groups' values: POP1 in EU is not POP1 in US.
      const key = `${lvl}\u0000${leaf.groups.slice(0, lvl + 1).join('\u0000')}`;
      let g = byKey.get(key);
      if (!g) {
        let name = taken.has(value) ? `${value} (${criteria[lvl]})` : value;
        for (let n = 2; taken.has(name); n++) name = `${value} (${criteria[lvl]}) (${n})`;
        taken.add(name);
        g = { name, coordinate: [0, 0], meta: {}, children: [] };
        byKey.set(key, g);
        levels[lvl].push(g);
        members.set(g, { lvl, children: new Set(), metas: [] });
      }
      const m = members.get(g)!;
      if (!m.children.has(child)) {
        m.children.add(child);
        g.children!.push(child);
      }
      m.metas.push(leaf.node.meta);
      child = g.name;
    }
  }
  for (const [g, { lvl, metas }] of members) {
    // Keep the fields every member agrees on (Terranova does the same).
    const common: Record<string, unknown> = {};
    const first = metas[0];
    for (const k of Object.keys(first)) {
      if (['svg', 'computed_width', 'computed_height', 'endpoint_name'].includes(k)) continue;
      const v = JSON.stringify(first[k]);
      if (metas.every((m) => JSON.stringify(m[k]) === v)) common[k] = first[k];
    }
    g.meta = { ...common, endpoint_name: g.name, group: criteria[lvl] };
  }
  return levels.flat();
}

/** A group sits at the centroid of its leaf descendants (inner levels first is not needed: we descend). */
function placeGroups(groups: TopologyNode[], byName: Map<string, TopologyNode>): void {
  const groupByName = new Map(groups.map((g) => [g.name, g]));
  const leafCoords = (g: TopologyNode, depth = 0): LatLng[] =>
    depth > 32 ? [] : g.children!.flatMap((c) => {
      const sub = groupByName.get(c);
      if (sub && !byName.has(c)) return leafCoords(sub, depth + 1);
      const n = byName.get(c);
      return n ? [n.coordinate] : [];
    });
  for (const g of groups) g.coordinate = centroid(leafCoords(g));
}
