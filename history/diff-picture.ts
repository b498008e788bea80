// The picture of a dataset's change (docs/api.md: Diffs), drawn from the same
// diff its JSON answers (diff-dataset.ts), so the picture's counts are the
// JSON's: routers and circuits, never site groups. Both versions' circuits
// are laid out once, as one topology (the union: the later version's
// records, then the earlier's that it no longer has), so in a logical
// layout what did not change keeps its place instead of every router moving
// between two separate layouts.
import type { DatasetQuery } from '../schema/dataset.ts';
import type { DiffMarks, DiffStatus, UnionDiff } from '../render/diff-svg.ts';
import { buildTopology } from '../render/topology.ts';
import type { Layout } from '../render/types.ts';
import { diffDataset, recordKeyer, type DatasetSide } from './diff-dataset.ts';

/** What the picture of a dataset's change draws (the union, its marks, the options); the render pool draws it. */
export async function datasetDiffPicture(before: DatasetSide, after: DatasetSide, options: { layout: Layout; width?: number; height?: number }): Promise<UnionDiff> {
  const a = before.records ?? [], b = after.records ?? [];
  const key = recordKeyer(a, b);
  const later = new Set(b.map((r) => key(r?.name, r?.id)));
  const union = [...b, ...a.filter((r) => !later.has(key(r?.name, r?.id)))];
  const query = (after.records ? after.query : before.query) ?? undefined;
  const topology = await buildTopology(union, { name: after.name || before.name, layout: options.layout, query: query as DatasetQuery | undefined, template: null });
  const diff = diffDataset(before, after);
  const nodes = new Map<string, DiffStatus>(), edges = new Map<string, DiffStatus>();
  for (const status of ['added', 'removed', 'changed'] as const) {
    for (const n of diff.nodes[status]) nodes.set(n.name, status);
    for (const e of diff.edges[status] as { name: string; id?: unknown }[]) edges.set(key(e.name, e.id), status);
  }
  const marks: DiffMarks = { nodes, edges };
  return { union: topology, marks, options: { ...options, title: `Changes to ${after.name || before.name || 'topology'}` } };
}
