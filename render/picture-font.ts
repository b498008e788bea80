// The typeface of every picture: DejaVu Sans, shipped with the project by the
// dejavu-fonts-ttf package. SVGs name it first (browsers that have it draw
// the same glyphs; Verdana is its closest common metric match), and PNGs are
// rasterized with these very files and no system font, so a PNG's text is
// the same on any machine, a fresh container with no fonts included.
import { createRequire } from 'node:module';

/** The SVG `font-family` of pictures (docs/render.md: Text). */
export const PICTURE_FONT_FAMILY = "'DejaVu Sans', Verdana, sans-serif";

/** The family name inside the files below. */
export const PICTURE_FONT_NAME = 'DejaVu Sans';

const require = createRequire(import.meta.url);

/** TrueType files of the family (regular, bold, oblique, bold oblique), resolved in node_modules. */
export const PICTURE_FONT_FILES: readonly string[] = Object.freeze(
  ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf', 'DejaVuSans-Oblique.ttf', 'DejaVuSans-BoldOblique.ttf']
    .map((file) => require.resolve(`dejavu-fonts-ttf/ttf/${file}`)),
);
