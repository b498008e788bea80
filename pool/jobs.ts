// What a render thread does (pool/thread.ts): each kind of work the pool takes,
// as plain data that crosses to the thread by structured clone, and the one
// function that does it there. The node markup of a topology is sanitizer
// output, which the thread would check again; the service names the strings
// it knows as such (`safe`), so the thread marks them instead of parsing them.
// Pictures come back as UTF-8 bytes, moved (not copied) to the main thread,
// and a PNG takes its SVG as the bytes the output cache holds: the main thread
// neither decodes nor encodes a picture (each was a string of some hundred
// kilobytes to copy and then collect, on the thread that answers everyone).
// A big dataset diff likewise takes the stored results as bytes and parses
// them here (history/stored-side.ts).
import { renderUnionDiffSvg, type UnionDiff } from '../render/diff-svg.ts';
import type { PictureSize } from '../render/picture-size.ts';
import { checkPngSize, pictureSize, rasterize, type PngLimits } from '../render/png.ts';
import { renderMapSvg, renderTopologySvg, type TopologySvgOptions } from '../render/svg.ts';
import type { Topology } from '../render/types.ts';
import { isMarkedSafe, markSafe } from '../svg-safety/safe-markup.ts';
import { diffDataset } from '../history/diff-dataset.ts';
import { parseStoredSide, type StoredSide } from '../history/stored-side.ts';
import { summarizeDataset } from '../history/summary.ts';

type MapDrawn = Parameters<typeof renderMapSvg>[0];

/** A picture (SVG) to draw. */
export type PictureJob =
  | { kind: 'map'; map: MapDrawn; topologies: Array<Topology | null>; size: PictureSize; traffic?: Parameters<typeof renderMapSvg>[3] }
  | { kind: 'topology'; topology: Topology; options: TopologySvgOptions }
  | ({ kind: 'diff' } & UnionDiff);

/** The PNG of a sanitized SVG (text, or its UTF-8 bytes), refused (422) when its size is over `limits`. */
type PngJob = { kind: 'png'; svg: string | Uint8Array; limits?: PngLimits };

/**
 * A big dataset diff, from both versions' stored results as bytes (moved to the thread, not copied, and parsed
 * there): answered as the diff's JSON in UTF-8 bytes, or as the one-sentence summary a new version carries.
 */
export interface DatasetDiffJob {
  kind: 'datasetDiff';
  before: StoredSide;
  after: StoredSide;
  answer: 'diff' | 'summary';
}

/** Any work for a render thread: a picture (answered as UTF-8 bytes), a PNG, or a big dataset diff. */
export type Job = PictureJob | PngJob | DatasetDiffJob;

/** A job as sent to the thread, with the node markup strings known to be sanitizer output. */
export interface SentJob {
  job: Job;
  safe: string[];
}

function topologiesOf(job: Job): Array<Topology | null> {
  if (job.kind === 'map') return job.topologies;
  if (job.kind === 'topology') return [job.topology];
  if (job.kind === 'diff') return [job.union];
  return [];
}

/** `job` with the markup of its nodes that this thread knows as sanitized. */
export function packJob(job: Job): SentJob {
  const safe = new Set<string>();
  for (const t of topologiesOf(job)) for (const n of t?.nodes ?? []) if (isMarkedSafe(n.meta?.svg)) safe.add(n.meta.svg as string);
  return { job, safe: [...safe] };
}

/**
 * The buffers `job` hands over to the thread rather than copies: a dataset diff's results, each when it owns its
 * whole ArrayBuffer (a small Buffer may share Node's pool with others, which must stay usable here).
 */
export function transfersOf(job: Job): ArrayBuffer[] {
  if (job.kind !== 'datasetDiff') return [];
  const owned = [job.before.results, job.after.results].flatMap((bytes) =>
    bytes && bytes.buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? [bytes.buffer] : []);
  return [...new Set(owned)];
}

const utf8 = new TextEncoder();

function datasetDiff(job: DatasetDiffJob): string | Uint8Array {
  const diff = diffDataset(parseStoredSide(job.before), parseStoredSide(job.after));
  return job.answer === 'summary' ? summarizeDataset(diff) : utf8.encode(JSON.stringify(diff));
}

function png(job: PngJob): Uint8Array {
  const svg = typeof job.svg === 'string' ? job.svg : Buffer.from(job.svg.buffer, job.svg.byteOffset, job.svg.byteLength).toString('utf8');
  if (job.limits) checkPngSize(pictureSize(svg), job.limits);
  return rasterize(svg);
}

/** Does `sent` on this thread: an SVG's UTF-8 bytes, PNG bytes, a dataset diff's JSON bytes or its summary. */
export function runJob(sent: SentJob): string | Uint8Array {
  for (const markup of sent.safe) markSafe(markup);
  const { job } = sent;
  switch (job.kind) {
    case 'map': return utf8.encode(renderMapSvg(job.map, job.topologies, job.size, job.traffic));
    case 'topology': return utf8.encode(renderTopologySvg(job.topology, job.options));
    case 'diff': return utf8.encode(renderUnionDiffSvg(job.union, job.marks, job.options));
    case 'png': return png(job);
    case 'datasetDiff': return datasetDiff(job);
  }
}
