// Circuits coloured by a field (a layer's `edgeColorBy`, docs/api.md: Map
// layers): each value of the field among the layer's circuits gets a colour
// of its own and a legend entry; circuits without the field keep the layer's
// colour. Deterministic: values are ordered by how many circuits carry them,
// then by name, so the same data gives the same colours.
import { text } from './topology.ts';
import type { Topology } from './types.ts';

/** Tableau's ten categorical colours, which stay apart for most colour-blind readers too. */
const CATEGORY_COLORS = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];
/** Values beyond the palette share the layer's colour, under one "other" legend entry. */
const MAX_VALUES = CATEGORY_COLORS.length;

export interface EdgeColoring {
  field: string;
  /** Value (as text) -> colour, in legend order. */
  colors: Map<string, string>;
  /** Some circuits carry a value past the palette's: drawn in the layer's colour. */
  others: boolean;
}

/** The value of `field` a circuit shows: its meta field as text, '' when absent. */
export const edgeValue = (meta: Record<string, unknown>, field: string) => (Object.hasOwn(meta, field) ? text(meta[field]).trim() : '');

export function edgeColoring(topology: Topology, field: string): EdgeColoring {
  const counts = new Map<string, number>();
  for (const e of topology.edges) {
    const v = edgeValue(e.meta, field);
    if (v) counts.set(v, (counts.get(v) ?? 0) + 1);
  }
  const values = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([v]) => v);
  return {
    field,
    colors: new Map(values.slice(0, MAX_VALUES).map((v, i) => [v, CATEGORY_COLORS[i]])),
    others: values.length > MAX_VALUES,
  };
}
