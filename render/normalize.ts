// Topology JSON that did not come from buildTopology - a layer's inline
// `mapjson`, or the `state` of an override - is reduced to the Terranova shape
// with finite coordinates, and its node markup is re-sanitized, before it is
// returned to clients or drawn. Malformed entries are dropped, not fatal.
import type { LatLng, Topology, TopologyEdge, TopologyNode } from './types.ts';
import { safeMarkup } from '../svg-safety/safe-markup.ts';
import { tooDeepUnder } from '../schema/json-depth.ts';

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function latLng(v: unknown): LatLng | null {
  if (!Array.isArray(v) || v.length < 2) return null;
  const a = Number(v[0]), b = Number(v[1]);
  return Number.isFinite(a) && Number.isFinite(b) && Math.abs(a) <= 90 && Math.abs(b) <= 360 ? [a, b] : null;
}

function cleanMeta(v: unknown): Record<string, unknown> {
  const meta: Record<string, unknown> = {};
  if (!isObj(v)) return meta;
  for (const k of Object.keys(v)) if (k !== '__proto__' && k !== 'constructor' && k !== 'prototype') meta[k] = v[k];
  if (typeof meta.svg === 'string') meta.svg = safeMarkup(meta.svg);
  else delete meta.svg;
  return meta;
}

export function normalizeNode(v: unknown, fallbackName?: string): TopologyNode | null {
  if (!isObj(v)) return null;
  const name = typeof v.name === 'string' && v.name !== '' ? v.name : fallbackName;
  const coordinate = latLng(v.coordinate);
  if (!name || !coordinate) return null;
  const node: TopologyNode = { ...v, name, coordinate, meta: cleanMeta(v.meta) };
  if (Array.isArray(v.children)) node.children = v.children.filter((c): c is string => typeof c === 'string');
  else delete node.children;
  return node;
}

export function normalizeEdge(v: unknown, fallbackName?: string): TopologyEdge | null {
  if (!isObj(v)) return null;
  const name = typeof v.name === 'string' && v.name !== '' ? v.name : fallbackName;
  const coordinates = Array.isArray(v.coordinates) ? v.coordinates.map(latLng).filter((c): c is LatLng => c !== null) : [];
  if (!name || coordinates.length < 2) return null;
  const meta = cleanMeta(v.meta) as TopologyEdge['meta'];
  if (!isObj(meta.endpoint_identifiers)) meta.endpoint_identifiers = {};
  return { ...v, name, coordinates, meta };
}

/** Accepts a topology object or its JSON string (nested at most MAX_JSON_DEPTH deep); returns null when it is neither. */
export function normalizeTopology(input: unknown, fallbackName = ''): Topology | null {
  let v = input;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      return null;
    }
    if (tooDeepUnder(v) !== undefined) return null; // extra keys are kept, and later stringified recursively
  }
  if (!isObj(v)) return null;
  const nodes = Array.isArray(v.nodes) ? v.nodes.map((n) => normalizeNode(n)).filter((n): n is TopologyNode => n !== null) : [];
  const edges = Array.isArray(v.edges) ? v.edges.map((e) => normalizeEdge(e)).filter((e): e is TopologyEdge => e !== null) : [];
  return {
    ...v,
    name: typeof v.name === 'string' ? v.name : fallbackName,
    layer: typeof v.layer === 'string' ? v.layer : 'tail',
    pathLayout: isObj(v.pathLayout) && typeof v.pathLayout.type === 'string' ? (v.pathLayout as Topology['pathLayout']) : { type: 'curveCardinal', tension: 0.6 },
    nodes,
    edges,
  };
}
