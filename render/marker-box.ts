// The box a node's drawing covers around its position, for spreading markers
// and keeping labels off them: the template's data-width x data-height box
// (computed_width / computed_height), grown to take in the shapes and text
// the markup draws outside it (a template that writes the site's name under
// its badge). Estimated from the sanitized markup's own attributes - circle,
// ellipse, rect and text positions, font sizes and anchors - without a layout
// engine; a shape under a transform keeps to the data box. What a template
// draws counts only up to MARKER_REACH_FACTOR times its data box's larger
// side (at least MARKER_REACH_MIN units) from the node, so one far-reaching
// shape cannot make every marker huge and every picture slow to place
// (docs/render.md: Bounds); templateReachWarning names such a shape when the
// template is saved.
import type { Rect } from './box-index.ts';
import { compileTemplate } from '../svg-safety/template.ts';
import { MarkupCache } from './markup-cache.ts';
import { textWidth } from './text-width.ts';
import type { TopologyNode } from './types.ts';

/** A node's data box as pictures draw it: its computed_width x computed_height, 10 px a side unless set, at most 400. */
export function dataBox(n: TopologyNode): { w: number; h: number } {
  const side = (k: string) => {
    const v = Number(n.meta[k]);
    return Number.isFinite(v) && v > 0 ? Math.min(v, 400) : 10;
  };
  return { w: side('computed_width'), h: side('computed_height') };
}

const SVG_DEFAULT_FONT_PX = 16;
// By markup, then size: a picture asks for every node, and a map's nodes share a few templates.
const boxes = new MarkupCache<Rect>();
const outside = new MarkupCache<readonly TextPart[]>();

const attr = (tag: string, name: string): number | null => {
  const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  if (!m) return null;
  const v = Number.parseFloat(m[1]);
  return Number.isFinite(v) ? v : null;
};
const raw = (tag: string, name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const plain = (s: string) => s.replace(/<[^>]*>/g, '').replace(/&(#x?[0-9a-f]+|[a-z]+);/gi, (_, e: string) =>
  e[0] === '#' ? String.fromCodePoint(Number.parseInt(e[1] === 'x' || e[1] === 'X' ? e.slice(2) : e.slice(1), e[1] === 'x' || e[1] === 'X' ? 16 : 10) || 32) : ENTITIES[e] ?? ' ');

/** How far from the node a template's drawing counts for placement: this many times its data box's larger side... */
const MARKER_REACH_FACTOR = 8;
/** ...and at least this many units (room for a site name written beside a small badge). */
export const MARKER_REACH_MIN = 256;

const reachOf = (w: number, h: number) => Math.max(MARKER_REACH_FACTOR * Math.max(w, h), MARKER_REACH_MIN);

/** The shape that reaches farthest from the node, and how far. */
interface Farthest { tag: string; reach: number }

function grow(r: Rect, far: Farthest, tag: string, x0: number, y0: number, x1: number, y1: number) {
  if ([x0, y0, x1, y1].every(Number.isFinite)) {
    r.x0 = Math.min(r.x0, x0); r.y0 = Math.min(r.y0, y0); r.x1 = Math.max(r.x1, x1); r.y1 = Math.max(r.y1, y1);
    const reach = Math.max(-x0, -y0, x1, y1);
    if (reach > far.reach) { far.reach = reach; far.tag = tag; }
  }
}

/** The box of `markup` around the node's position, at least `w` x `h` centred on it, at most its reach. */
export function markerBox(markup: string, w: number, h: number): Rect {
  return boxes.get(markup, `${w}x${h}`, () => {
    const r = drawnBox(markup, w, h).box;
    const reach = Math.max(reachOf(w, h), w / 2, h / 2);
    return { x0: Math.max(r.x0, -reach), y0: Math.max(r.y0, -reach), x1: Math.min(r.x1, reach), y1: Math.min(r.y1, reach) };
  });
}

/** The box the markup's shapes and text cover, unbounded, with the shape that reaches farthest. */
function drawnBox(markup: string, w: number, h: number): { box: Rect; farthest: Farthest } {
  const far: Farthest = { tag: '', reach: 0 };
  const r: Rect = { x0: -w / 2, y0: -h / 2, x1: w / 2, y1: h / 2 };
  if (!/transform=/.test(markup)) {
    const outerFont = attr(markup.slice(0, markup.indexOf('>') + 1), 'font-size');
    for (const m of markup.matchAll(/<(circle|ellipse|rect)\s[^>]*>/g)) {
      const tag = m[0];
      // Half the outline, which is drawn over the edge: the node's group strokes 1 px unless the shape says otherwise.
      const sw = /\sstroke="none"/.test(tag) ? 0 : (attr(tag, 'stroke-width') ?? 1) / 2;
      if (m[1] === 'rect') {
        const x = attr(tag, 'x') ?? 0, y = attr(tag, 'y') ?? 0;
        grow(r, far, tag, x - sw, y - sw, x + (attr(tag, 'width') ?? 0) + sw, y + (attr(tag, 'height') ?? 0) + sw);
      } else {
        const cx = attr(tag, 'cx') ?? 0, cy = attr(tag, 'cy') ?? 0;
        const rx = attr(tag, m[1] === 'circle' ? 'r' : 'rx') ?? 0, ry = attr(tag, m[1] === 'circle' ? 'r' : 'ry') ?? 0;
        grow(r, far, tag, cx - rx - sw, cy - ry - sw, cx + rx + sw, cy + ry + sw);
      }
    }
    for (const { text, box: b } of textBoxes(markup, outerFont)) grow(r, far, `<text>${text.slice(0, 40)}</text>`, b.x0, b.y0, b.x1, b.y1);
  }
  return { box: r, farthest: far };
}

/** A text element of a template: what it says, the box it covers around the node, and where it is in the markup. */
interface TextPart { text: string; box: Rect; from: number; to: number }

/** Each text element of `markup` (sanitizer output) with the box it covers around the node, estimated from its attributes. */
function textBoxes(markup: string, outerFont: number | null): TextPart[] {
  const out: TextPart[] = [];
  for (const m of markup.matchAll(/<text(\s[^>]*)?>([\s\S]*?)<\/text>/g)) {
    const tag = m[1] ?? '';
    const px = attr(tag, 'font-size') ?? outerFont ?? SVG_DEFAULT_FONT_PX;
    const text = plain(m[2]);
    const tw = textWidth(text, px);
    const x = attr(tag, 'x') ?? 0;
    let y = attr(tag, 'y') ?? 0;
    const dy = raw(tag, 'dy');
    if (dy) y += Number.parseFloat(dy) * (dy.endsWith('em') ? px : 1) || 0;
    const anchor = raw(tag, 'text-anchor');
    const x0 = anchor === 'middle' ? x - tw / 2 : anchor === 'end' ? x - tw : x;
    const central = /^(central|middle)$/.test(raw(tag, 'dominant-baseline') ?? '');
    const box = { x0, y0: central ? y - 0.65 * px : y - 0.95 * px, x1: x0 + tw, y1: central ? y + 0.65 * px : y + 0.3 * px };
    out.push({ text: text.trim(), box, from: m.index, to: m.index + m[0].length });
  }
  return out;
}

/** `markup` without the text elements `parts` of it (whole elements of sanitizer output: the rest stays well-formed). */
export function withoutText(markup: string, parts: readonly TextPart[]): string {
  let out = '', at = 0;
  for (const p of [...parts].sort((a, b) => a.from - b.from)) {
    out += markup.slice(at, p.from);
    at = p.to;
  }
  return out + markup.slice(at);
}

/**
 * `markup` with the text element `part` moved `dy` units down (up when negative), or null when its lines set their own
 * positions (a tspan with y or dy), which moving the element would not move alike.
 */
export function shiftText(markup: string, part: TextPart, dy: number): string | null {
  const element = markup.slice(part.from, part.to);
  const open = element.indexOf('>') + 1;
  if (/<tspan\s[^>]*\s(?:d?y)=/.test(element.slice(open))) return null;
  const tag = element.slice(0, open);
  const y = attr(tag, 'y') ?? 0;
  const value = ` y="${Math.round((y + dy) * 100) / 100}"`;
  const moved = /\sy="[^"]*"/.test(tag) ? tag.replace(/\sy="[^"]*"/, value) : `<text${value}${tag.slice(5)}`;
  return markup.slice(0, part.from) + moved + element.slice(open) + markup.slice(part.to);
}

/**
 * The text a node's template writes beside its data box (`w` x `h` about the node: a site's name under its badge),
 * where circuits would run under it; text centred on the node's own shape is drawn over them, even where the
 * estimate of its width runs a little past the shape (a pill sized to its name: "NORDUnet Copenhagen" estimated
 * 128.3 px in a pill of 127). None when the text sits under a transform, whose boxes are not estimated.
 */
export function textOutside(markup: string, w: number, h: number): readonly TextPart[] {
  if (!markup.includes('<text') || /transform=/.test(markup)) return [];
  return outside.get(markup, `${w}x${h}`, () => {
    const outerFont = attr(markup.slice(0, markup.indexOf('>') + 1), 'font-size');
    const onShape = ({ x0, y0, x1, y1 }: TextPart['box']) => Math.abs(x0 + x1) <= w && Math.abs(y0 + y1) <= h;
    return textBoxes(markup, outerFont).filter(({ text, box }) => text && !onShape(box));
  });
}

/**
 * The save answer's warning when a template draws farther from its node than placement counts (a huge
 * halo, a shape thousands of units off): it names the shape, as drawn for a sample node. Null otherwise.
 */
export function templateReachWarning(template: string): string | null {
  let node: ReturnType<ReturnType<typeof compileTemplate>['render']>;
  try {
    node = compileTemplate(template).render({ name: 'example', endpoint_name: 'example', meta: {} });
  } catch {
    return null; // refused for its own reasons, with their own message
  }
  const w = node.width ?? 10, h = node.height ?? 10;
  const { farthest } = drawnBox(node.svg, w, h);
  const reach = Math.max(reachOf(w, h), w / 2, h / 2);
  if (farthest.reach <= reach) return null;
  return `${farthest.tag.length > 120 ? `${farthest.tag.slice(0, 117)}...` : farthest.tag} draws ${Math.round(farthest.reach)} units from the node: ` +
    `it is drawn, but labels and spreading count a marker only ${Math.round(reach)} units out ` +
    `(${MARKER_REACH_FACTOR} times its data-width/data-height, at least ${MARKER_REACH_MIN}), so it may cover its neighbours and their labels`;
}
