// Query parameters of the picture routes (docs/api.md: Picture size): `width`
// and `height` in px, whole numbers within sane bounds, each drawn at the
// size step at or above it (SIZE_STEPS_PX), so a client that varies the size
// costs at most one render per step. The routes parse with these schemas and
// the OpenAPI document is generated from them.
import * as v from 'valibot';
import { documentedAs, integerSchema } from './list.ts';

const MIN_SIDE_PX = 16;
const MAX_SIDE_PX = 8192;

/** The sizes pictures are drawn at (docs/api.md: Picture size): a side asked for is drawn at the first step at or above it. */
export const SIZE_STEPS_PX: readonly number[] = [16, 20, 24, 32, 40, 48, 64, 80, 100, 120, 160, 200, 240, 300, 320, 400, 480, 600, 640,
  800, 960, 1000, 1200, 1280, 1600, 1920, 2000, 2400, 2560, 3200, 3840, 4000, 4800, 5120, 6400, 7680, MAX_SIDE_PX];

const toStep = (px: number) => SIZE_STEPS_PX.find((step) => step >= px) ?? MAX_SIDE_PX;

const side = (what: string) => {
  const message = `expected a whole number of pixels from ${MIN_SIDE_PX} to ${MAX_SIDE_PX}`;
  return v.pipe(
    v.string(),
    v.description(what),
    v.regex(/^[0-9]{1,9}$/, message),
    v.transform(Number),
    v.minValue(MIN_SIDE_PX, message),
    v.maxValue(MAX_SIDE_PX, message),
    v.transform(toStep),
    documentedAs(integerSchema(MIN_SIDE_PX, MAX_SIDE_PX)),
  );
};

export const WidthParamSchema = side('picture width in px, drawn at the size step at or above it (default: none, the picture scales to its container); alone, the height follows the aspect ratio');
export const HeightParamSchema = side('picture height in px, drawn at the size step at or above it (default: none); alone, the width follows the aspect ratio; with width, the view widens to that aspect ratio');
