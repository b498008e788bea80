// A dataset's outputs: its topology (stored results, or a live run of its
// query) and the picture of it, and the picture of a change between two of
// its versions. Everything that shapes an output is in its cache key or read
// through the loaders (their dependencies): a new parameter that changes the
// answer must join the key, or requests differing by it would share one output.
import { datasetDiffPicture } from '../history/diff-picture.ts';
import type { PictureJob } from '../pool/jobs.ts';
import { buildTopology } from '../render/topology.ts';
import { buildTopologyCached } from '../render/topology-cache.ts';
import type { Layout } from '../render/types.ts';
import { datasetSide } from '../resources/changes.ts';
import type { StoredVersion } from '../resources/types.ts';
import type { Datatype } from '../schema/output-url.ts';
import type { Store } from '../store/types.ts';
import type { LayerLoaders } from './layers.ts';
import { checkPictureCircuits } from './picture-limit.ts';
import { sizeKey } from './map.ts';

/** What a dataset output request asks for. */
export interface DatasetAsk {
  id: string;
  version: number | 'latest';
  layout: Layout;
  datatype: Datatype;
  template: string | null;
  size: { width?: number; height?: number };
}

export const datasetOutputKey = (a: DatasetAsk) =>
  ['dataset', a.id, a.version, a.layout, a.datatype, a.template ?? '', sizeKey(a.size)].join('\n');

/**
 * The topology of a dataset output, and what its JSON answer should say (a
 * snapshot of a version without stored results ran live). Stored results
 * never change, so their topology is built once; live data always anew.
 */
export async function datasetTopology(a: DatasetAsk, load: LayerLoaders) {
  const [input, markup] = await Promise.all([load.dataset(a.id, a.version, a.datatype), a.template ? load.template(a.template) : null]);
  const options = { name: input.name, layout: a.layout, query: input.query, template: markup };
  const topology = await (input.resultsKey ? buildTopologyCached(input.resultsKey, input.records, options) : buildTopology(input.records, options));
  return { topology, warnings: input.note ? [input.note] : [] };
}

/** Both versions of a change are stored for good, so their numbers key its picture. */
export const diffPictureKey = (id: string, from: StoredVersion, to: StoredVersion, layout: Layout, size: { width?: number; height?: number }) =>
  ['diff', id, from.version, to.version, layout, sizeKey(size)].join('\n');

/** The picture of a change (added green, removed dashed red, changed amber): both versions laid out once, marked by the JSON diff (history/diff-picture.ts). */
export async function diffPicture(store: Store, from: StoredVersion, to: StoredVersion, layout: Layout, size: { width?: number; height?: number },
  maxCircuits: number) {
  const [before, after] = await Promise.all([datasetSide(store, from), datasetSide(store, to)]);
  for (const [side, v] of [[before, from], [after, to]] as const) checkPictureCircuits(side.records?.length ?? 0, maxCircuits, `version ${v.version}`);
  // Drawn on the render pool (output/send.ts).
  return { kind: 'diff', ...(await datasetDiffPicture(before, after, { layout, ...size })) } satisfies PictureJob;
}
