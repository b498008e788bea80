// A dataset's outputs: its topology (stored results, or a live run of its
// query) and the picture of it, and the picture of a change between two of
// its versions. Everything that shapes an output is in its cache key or read
// through the loaders (their dependencies): a new parameter that changes the
// answer must join the key, or requests differing by it would share one output.
import { renderDiffSvg } from '../render/diff-svg.ts';
import { buildTopology } from '../render/topology.ts';
import { buildTopologyCached } from '../render/topology-cache.ts';
import type { Layout } from '../render/types.ts';
import { datasetSide } from '../resources/changes.ts';
import type { StoredVersion } from '../resources/types.ts';
import type { Datatype } from '../schema/output-url.ts';
import type { Store } from '../store/types.ts';
import type { LayerLoaders } from './layers.ts';
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

/** The topology of a dataset output. Stored results never change, so their topology is built once; live data always anew. */
export async function datasetTopology(a: DatasetAsk, load: LayerLoaders) {
  const [input, markup] = await Promise.all([load.dataset(a.id, a.version, a.datatype), a.template ? load.template(a.template) : null]);
  const build = a.datatype === 'snapshot' ? buildTopologyCached : buildTopology;
  return build(input.records, { name: input.name, layout: a.layout, query: input.query, template: markup });
}

/** Both versions of a change are stored for good, so their numbers key its picture. */
export const diffPictureKey = (id: string, from: StoredVersion, to: StoredVersion, layout: Layout, size: { width?: number; height?: number }) =>
  ['diff', id, from.version, to.version, layout, sizeKey(size)].join('\n');

/** The picture of a change (added green, removed dashed red, changed amber). */
export async function diffPicture(store: Store, from: StoredVersion, to: StoredVersion, layout: Layout, size: { width?: number; height?: number }) {
  const topology = async (v: StoredVersion) => {
    const side = await datasetSide(store, v);
    return buildTopologyCached(side.records ?? [], { name: side.name, layout, query: (side.query ?? undefined) as never, template: null });
  };
  const [before, after] = await Promise.all([topology(from), topology(to)]);
  return renderDiffSvg(before, after, { layout, ...size });
}
