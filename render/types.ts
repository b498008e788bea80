// The topology JSON that dataset and map output return. The shape is
// Terranova's (terranova/abstract_models.py: Topology), because existing
// clients (Terranova's editor, esnet-networkmap-panel) read it as is.

/** [latitude, longitude], as Terranova and Leaflet order them. */
export type LatLng = [number, number];

export interface TopologyNode {
  name: string;
  coordinate: LatLng;
  /**
   * The circuit end's fields (first occurrence wins, later ones fill gaps), plus
   * `endpoint_name`, the rendered node `svg` and its `computed_width` /
   * `computed_height` (from data-width / data-height), as Terranova sends them.
   */
  meta: Record<string, unknown>;
  /** Names of member nodes; present on group nodes only. */
  children?: string[];
}

interface EdgeMeta {
  capacity?: unknown;
  /** Terranova: {names: [a, b], edge_id: [id], edge_name: [name]}. */
  endpoint_identifiers: Record<string, unknown[]>;
  [field: string]: unknown;
}

export interface TopologyEdge {
  name: string;
  /** At least two points; a parallel circuit gets an offset midpoint. */
  coordinates: LatLng[];
  meta: EdgeMeta;
}

interface PathLayout {
  type: string;
  tension?: number;
  [k: string]: unknown;
}

export interface Topology {
  name: string;
  layer: string;
  pathLayout: PathLayout;
  nodes: TopologyNode[];
  edges: TopologyEdge[];
}

export type Layout = 'geographic' | 'logical';
