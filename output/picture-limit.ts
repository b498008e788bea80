// How many circuits one picture may draw (settings output.pictureCircuits).
// A picture is laid out on the main thread and its topology handed to a
// render thread: for 199,000 circuits that held the event loop 1.9 s (a
// diff picture 3.9 s) before the render thread gave up at its budget. Far
// fewer circuits make a picture nobody can read, so the count is checked
// as soon as the records are read, before anything is built: 422 naming
// the setting. The JSON outputs are not bounded by it.
import { validationFailed } from '../errors.ts';
import type { LayerLoaders } from './layers.ts';

/** 422 when `count` circuits of `what` are more than a picture draws. */
export function checkPictureCircuits(count: number, max: number, what: string): void {
  if (count <= max) return;
  throw validationFailed(`${what} has ${count} circuits; a picture draws at most ${max} (setting output.pictureCircuits): ` +
    'filter the dataset, or use its JSON output');
}

/** `loaders`, whose datasets are refused past `max` circuits: for pictures. */
export function pictureLoaders(loaders: LayerLoaders, max: number): LayerLoaders {
  return {
    ...loaders,
    async dataset(id, version, datatype) {
      const input = await loaders.dataset(id, version, datatype);
      checkPictureCircuits(input.records.length, max, `dataset ${id}`);
      return input;
    },
  };
}
