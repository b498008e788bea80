// Query parameters of the picture routes (docs/api.md: Picture size): `width`
// and `height` in px, whole numbers within sane bounds. The routes parse with
// these schemas and the OpenAPI document is generated from them.
import * as v from 'valibot';
import { documentedAs, integerSchema } from './list.ts';

const MIN_SIDE_PX = 16;
const MAX_SIDE_PX = 8192;

const side = (what: string) => {
  const message = `expected a whole number of pixels from ${MIN_SIDE_PX} to ${MAX_SIDE_PX}`;
  return v.pipe(
    v.string(),
    v.description(what),
    v.regex(/^[0-9]{1,9}$/, message),
    v.transform(Number),
    v.minValue(MIN_SIDE_PX, message),
    v.maxValue(MAX_SIDE_PX, message),
    documentedAs(integerSchema(MIN_SIDE_PX, MAX_SIDE_PX)),
  );
};

export const WidthParamSchema = side('picture width in px (default: none, the picture scales to its container); alone, the height follows the aspect ratio');
export const HeightParamSchema = side('picture height in px (default: none); alone, the width follows the aspect ratio; with width, the view widens to that aspect ratio');
