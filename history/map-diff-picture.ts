// The picture of a map's change (docs/api.md: Diffs): the geographic layers
// of each version drawn as one network (a router several layers list is one
// router, as in the map's picture), both versions on one frame, each router
// and circuit coloured by what happened to it (render/diff-svg.ts), and a
// legend line per layer added or removed. A circuit is known by its layer
// and name, so the same circuit name in two layers is two circuits, and a
// layer added brings all its circuits as added.
import { compareTopologies, unionOf, type UnionDiff } from '../render/diff-svg.ts';
import type { Topology, TopologyEdge } from '../render/types.ts';

/** A layer of one version, as resolved for the map's picture. */
export interface DiffLayer {
  name: string;
  topology: Topology;
}

const MAX_NAME = 80;
const cut = (s: string) => (Array.from(s).length <= MAX_NAME ? s : `${Array.from(s).slice(0, MAX_NAME - 1).join('')}…`);

/** The layers as one topology: routers once (the first layer's), circuits named by layer and name. */
function merged(layers: readonly DiffLayer[], name: string): Topology {
  const nodes = new Map<string, Topology['nodes'][number]>();
  const edges: TopologyEdge[] = [];
  for (const { name: layer, topology } of layers) {
    for (const n of topology.nodes) if (!nodes.has(`${n.children ? 'g' : 'n'}:${n.name}`)) nodes.set(`${n.children ? 'g' : 'n'}:${n.name}`, n);
    for (const e of topology.edges) {
      const ids = e.meta.endpoint_identifiers ?? {};
      const named = `${layer} / ${String(ids.edge_name?.[0] ?? e.name)}`;
      edges.push({ ...e, name: `${layer} / ${e.name}`, meta: { ...e.meta, endpoint_identifiers: { ...ids, edge_name: [named] } } });
    }
  }
  return { name, layer: name, pathLayout: layers[0]?.topology.pathLayout ?? { type: 'curveCardinal' }, nodes: [...nodes.values()], edges };
}

/** What the picture of a map's change draws; the render pool draws it. */
export function mapDiffPicture(title: string, before: readonly DiffLayer[], after: readonly DiffLayer[], size: { width?: number; height?: number }): UnionDiff {
  const [a, b] = [merged(before, title), merged(after, title)];
  const had = new Set(before.map((l) => l.name)), has = new Set(after.map((l) => l.name));
  const notes = [
    ...after.filter((l) => !had.has(l.name)).map((l) => `layer added: ${cut(l.name)}`),
    ...before.filter((l) => !has.has(l.name)).map((l) => `layer removed: ${cut(l.name)}`),
  ];
  return { union: unionOf(a, b), marks: compareTopologies(a, b, false), options: { layout: 'geographic', ...size, notes, title: `Changes to ${title}` } };
}
