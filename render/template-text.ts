// Which text of a node's template a picture shows (docs/render.md: Template
// text). Text a template draws itself scales with the picture, unlike our
// labels: in a picture drawn smaller than its viewBox it would fall below a
// readable size. So text (and each tspan or textPath in it) that would show
// under MIN_TEXT_PX on screen is left out, as is text with nothing to show;
// the node then counts as having no text of its own and gets a placed label,
// which keeps 11 px or is left out. Faint group markers keep no text at all.
// Text the template leaves unstroked would take the marker outline the
// picture's node group sets (dark, 1 px: heavy, smudged glyphs); it gets a
// halo in the labels' halo colour instead, so circuits under it do not cut
// through it.
// Works on sanitizer output and answers sanitizer output: the markup is
// parsed, elements are removed, and the rest is serialized again.
import type { DomLike } from '../svg-safety/sanitize.ts';
import { serialize } from '../svg-safety/sanitize.ts';
import { parseFragment } from '../svg-safety/parse.ts';
import { markSafe } from '../svg-safety/safe-markup.ts';
import { MarkupCache } from './markup-cache.ts';

/** Smallest template font size a picture shows, in px on screen. */
export const MIN_TEXT_PX = 8;
const SVG_DEFAULT_FONT_PX = 16;
const TEXT = new Set(['text', 'tspan', 'textPath']);
const KEYWORDS: Record<string, number> = { 'xx-small': 9, 'x-small': 10, small: 13, medium: 16, large: 18, 'x-large': 24, 'xx-large': 32 };
// By markup, then the smallest size shown and the halo.
const cache = new MarkupCache<Shown>();

export interface Shown {
  /** The markup with the text that cannot be read left out (sanitizer output). */
  markup: string;
  /** Whether any text is left. */
  text: boolean;
  /** The smallest font size of the text left, in picture units (Infinity when none). */
  minPx: number;
  /** The largest font size of the text left out for its size, in picture units (0 when none). */
  hiddenPx: number;
  /** The text left out for its size ('' when none): a label placed for the node says it instead (one labelling scheme at every size). */
  hiddenText: string;
}

type El = DomLike & {
  getAttribute(n: string): string | null; setAttribute(n: string, v: string): void; removeChild(c: unknown): void; textContent: string | null;
};
const stroked = (el: El) => el.getAttribute('stroke') !== null || /(?:^|;)\s*stroke\s*:/i.test(el.getAttribute('style') ?? '');
/** The halo: as wide as the labels' (3 px at 11 px), for the text's own size. */
const HALO_EM = 3 / 11;
const isEl = (n: DomLike): n is El => n.nodeType === 1;

/** The font size `el` gives its text: its attribute or style, relative to `inherited` for em, % and smaller/larger. */
function fontPx(el: El, inherited: number): number {
  const style = /(?:^|;)\s*font-size\s*:\s*([^;]+)/i.exec(el.getAttribute('style') ?? '')?.[1];
  const v = (style ?? el.getAttribute('font-size') ?? '').trim().toLowerCase();
  if (!v || v === 'inherit') return inherited;
  if (v in KEYWORDS) return KEYWORDS[v];
  if (v === 'smaller') return inherited / 1.2;
  if (v === 'larger') return inherited * 1.2;
  const n = Number.parseFloat(v);
  if (!Number.isFinite(n) || n < 0) return inherited;
  if (v.endsWith('em')) return n * inherited;
  if (v.endsWith('%')) return (n / 100) * inherited;
  if (v.endsWith('pt')) return (n * 4) / 3;
  return n;
}

/**
 * `markup` (sanitizer output) as a picture at `scale` picture units per
 * screen px shows it: text under MIN_TEXT_PX on screen, or empty, left out;
 * all text left out when `keepText` is false (faint group markers); text
 * that sets no stroke of its own haloed in `halo`.
 */
export function shownMarkup(markup: string, scale: number, keepText = true, halo = '#ffffff'): Shown {
  if (!markup.includes('<text')) return { markup, text: false, minPx: Infinity, hiddenPx: 0, hiddenText: '' };
  const minPx = keepText ? MIN_TEXT_PX * scale : Infinity;
  return cache.get(markup, `${minPx}:${halo}`, () => shownAt(markup, minPx, keepText, halo));
}

/** shownMarkup's work: `markup` with text under `minPx` (picture units) left out and unstroked text haloed. */
function shownAt(markup: string, minPx: number, keepText: boolean, halo: string): Shown {
  let root: DomLike;
  try {
    root = parseFragment(markup);
  } catch {
    // Sanitizer output always parses, unless it outgrew the fragment limit: drawn as it is.
    return { markup, text: true, minPx: Infinity, hiddenPx: 0, hiddenText: '' };
  }
  let smallest = Infinity, hidden = 0;
  const hiddenText: string[] = [];
  const visit = (parent: El, px: number, outlined: boolean) => {
    for (const child of Array.from(parent.childNodes)) {
      if (!isEl(child)) continue;
      const own = fontPx(child, px);
      const isText = TEXT.has(child.localName ?? '');
      if (isText && own < minPx) {
        const said = (child.textContent ?? '').trim();
        if (keepText && said) { hidden = Math.max(hidden, own); hiddenText.push(said); }
        parent.removeChild(child);
        continue;
      }
      const set = outlined || stroked(child);
      if (child.localName === 'text' && !set) {
        child.setAttribute('stroke', halo);
        child.setAttribute('stroke-width', String(Math.round(HALO_EM * own * 100) / 100));
        child.setAttribute('stroke-linejoin', 'round');
        child.setAttribute('paint-order', 'stroke');
      }
      visit(child, own, set);
      // Empty, or emptied by the tspans left out.
      if (isText && !(child.textContent ?? '').trim()) parent.removeChild(child);
      else if (isText) smallest = Math.min(smallest, own);
    }
  };
  visit(root as El, SVG_DEFAULT_FONT_PX, false);
  const out: string[] = [];
  for (const child of Array.from(root.childNodes)) out.push(serialize(child));
  const joined = out.join('');
  return { markup: markSafe(joined), text: joined.includes('<text'), minPx: smallest, hiddenPx: hidden, hiddenText: hiddenText.join(' ') };
}
