// Test helper: the boxes a picture draws, read back from its SVG - each
// placed label (class "labels": its text at the group's font size), each leaf
// node (class "nodes": its template markup around its translate), the legend
// (class "legend": its frame), each faint group marker drawn (class
// "group-nodes"), the text node templates draw (leaf and group
// nodes alike: every <text> of the picture that is not a label, the legend's
// or a cluster title, with its size as seen on screen) - and the overlaps
// between them. Text widths
// are the renderer's conservative estimate (render/text-width.ts); the
// Chromium test checks that real glyph boxes lie inside these boxes.
import type { Rect } from '../../render/box-index.ts';
import { markerBox } from '../../render/marker-box.ts';
import { textWidth } from '../../render/text-width.ts';
import { parseSvg } from './svg-check.ts';

type El = Element;

export interface Labeled { name: string; box: Rect }

/** Text a node's template draws: its box, its font size in px on screen, and the node that draws it. */
export interface TemplateText extends Labeled { px: number; owner: string; ownerBox: Rect | null }

/** Classes of groups whose text the picture itself writes (checked as labels, legend and titles). */
const OWN_TEXT = new Set(['labels', 'legend', 'cluster-titles', 'traffic-rates', 'traffic-frame']);
const translateOf = (el: El) => /translate\((-?[\d.]+),(-?[\d.]+)\)/.exec(el.getAttribute('transform') ?? '');
const titleOf = (el: El) => { const first = kids(el)[0]; return first?.localName === 'title' ? first.textContent ?? '' : null; };

const byClass = (doc: Document, cls: string) => Array.from(doc.getElementsByTagName('g')).filter((g) => g.getAttribute('class') === cls);
const num = (el: El, name: string) => Number(el.getAttribute(name) ?? 0);
const kids = (el: El) => Array.from(el.childNodes).filter((n) => n.nodeType === 1) as El[];

export function pictureBoxes(svg: string) {
  const doc = parseSvg(svg) as unknown as Document;
  const root = doc.documentElement;
  const labels: Labeled[] = [];
  for (const g of byClass(doc, 'labels')) {
    const f = num(g, 'font-size');
    for (const t of Array.from(g.getElementsByTagName('text'))) {
      const x = num(t, 'x'), y = num(t, 'y'), text = t.textContent ?? '';
      labels.push({ name: text, box: { x0: x, y0: y - 0.62 * f, x1: x + textWidth(text, f), y1: y + 0.62 * f } });
    }
  }
  // The rate labels of live traffic, centred on their half-edge: the readability checks count them as labels.
  const rates: Labeled[] = [];
  for (const g of byClass(doc, 'traffic-rates')) {
    for (const t of Array.from(g.getElementsByTagName('text'))) {
      const f = num(t, 'font-size'), x = num(t, 'x'), y = num(t, 'y'), text = t.textContent ?? '', w = textWidth(text, f);
      rates.push({ name: `rate ${text}`, box: { x0: x - w / 2, y0: y - 0.62 * f, x1: x + w / 2, y1: y + 0.62 * f } });
    }
  }
  // Leaf nodes (class "nodes") and faint group markers (class "group-nodes"): each a group at its translate, its <title> first.
  const read = (cls: string) => byClass(doc, cls).flatMap(kids).map((node) => {
    const m = translateOf(node);
    if (!m) throw new Error('a node without its position');
    const [title, ...drawn] = kids(node);
    const name = title.localName === 'title' ? title.textContent ?? '' : '';
    const outer = drawn[0];
    const markup = drawn.map((d) => d.toString()).join('');
    const b = markerBox(markup, Number(outer?.getAttribute('data-width')) || 10, Number(outer?.getAttribute('data-height')) || 10);
    const x = Number(m[1]), y = Number(m[2]);
    return { el: node, name, box: { x0: x + b.x0, y0: y + b.y0, x1: x + b.x1, y1: y + b.y1 } };
  });
  const leaves = read('nodes');
  const nodes: Labeled[] = leaves.map(({ name, box }) => ({ name, box }));
  const leafEls = leaves.map((l) => l.el);
  const titles = nodes.map((n) => n.name);
  const groups: Labeled[] = read('group-nodes').map(({ name, box }) => ({ name, box }));
  // Every other <text>: drawn by a template, inside a node (a group at its translate, its <title> first).
  const texts: TemplateText[] = [];
  const clusterTitles: { name: string; px: number }[] = [];
  const sx = root.getAttribute('width') ? num(root, 'width') / Number(String(root.getAttribute('viewBox')).split(' ')[2]) : 1;
  for (const t of Array.from(doc.getElementsByTagName('text'))) {
    let px = 16, owner: El | null = null, sized = false, own = false;
    for (let a: El | null = t; a && a.nodeType === 1; a = a.parentNode as El | null) {
      if (!sized && a.getAttribute('font-size')) { px = Number.parseFloat(a.getAttribute('font-size')!); sized = true; }
      if (OWN_TEXT.has(a.getAttribute('class') ?? '')) own = true;
      if (a.getAttribute('class') === 'cluster-titles') clusterTitles.push({ name: t.textContent ?? '', px: Number.parseFloat(t.getAttribute('font-size') ?? a.getAttribute('font-size') ?? '16') * sx });
      if (!owner && a !== t && translateOf(a) && titleOf(a) !== null) owner = a;
    }
    if (own) continue;
    if (!owner) throw new Error(`text outside any node: ${t.toString()}`);
    const m = translateOf(owner)!;
    const text = t.textContent ?? '';
    const w = textWidth(text, px);
    const anchor = t.getAttribute('text-anchor');
    const x = Number(m[1]) + num(t, 'x') - (anchor === 'middle' ? w / 2 : anchor === 'end' ? w : 0);
    const dy = t.getAttribute('dy') ?? '';
    const y = Number(m[2]) + num(t, 'y') + (Number.parseFloat(dy) || 0) * (dy.endsWith('em') ? px : 1);
    const central = /^(central|middle)$/.test(t.getAttribute('dominant-baseline') ?? '');
    const name = titleOf(owner)!;
    const ownerIndex = leafEls.indexOf(owner);
    texts.push({
      name: `${name}: "${text}"`, owner: name, px: px * sx, ownerBox: ownerIndex >= 0 ? nodes[ownerIndex].box : null,
      box: { x0: x, y0: central ? y - 0.65 * px : y - 0.95 * px, x1: x + w, y1: central ? y + 0.65 * px : y + 0.3 * px },
    });
  }
  const legendRect = byClass(doc, 'legend').map((g) => g.getElementsByTagName('rect')[0]).find(Boolean);
  const legend = legendRect ? {
    x0: num(legendRect, 'x'), y0: num(legendRect, 'y'),
    x1: num(legendRect, 'x') + num(legendRect, 'width'), y1: num(legendRect, 'y') + num(legendRect, 'height'),
  } : null;
  const leaders = byClass(doc, 'leaders').flatMap((g) => Array.from(g.getElementsByTagName('line')))
    .map((l) => [num(l, 'x1'), num(l, 'y1'), num(l, 'x2'), num(l, 'y2')] as const);
  const viewBox = String(root.getAttribute('viewBox')).split(' ').map(Number);
  return { doc, root, labels, rates, nodes, titles, legend, leaders, viewBox, texts, groups, clusterTitles };
}

const meets = (a: Rect, b: Rect) => a.x0 < b.x1 - 0.01 && b.x0 < a.x1 - 0.01 && a.y0 < b.y1 - 0.01 && b.y0 < a.y1 - 0.01;

/**
 * What template text breaks of the labels' rules: overlaps with a label, a
 * node other than the one drawing it, the legend, or other template text,
 * and text (cluster titles too) under `minPx` on screen.
 */
export function templateTextProblems(p: ReturnType<typeof pictureBoxes>, minPx: number): string[] {
  const out: string[] = p.clusterTitles.filter((t) => t.px < minPx - 1e-9).map((t) => `cluster title ${t.name} is ${t.px.toFixed(2)} px on screen`);
  for (const t of p.texts) {
    if (t.px < minPx - 1e-9) out.push(`${t.name} is ${t.px.toFixed(2)} px on screen`);
    out.push(...overlapsBetween([t], p.labels).map((o) => `text-label ${o}`));
    out.push(...overlapsBetween([t], p.nodes.filter((n) => n.box !== t.ownerBox)).map((o) => `text-node ${o}`));
    if (p.legend) out.push(...overlapsBetween([t], [{ name: 'legend', box: p.legend }]).map((o) => `text-legend ${o}`));
  }
  // A leaf's text is inside its node's box, so node-node covers leaf text against leaf text; a group's is not.
  for (const t of p.texts.filter((x) => !x.ownerBox)) out.push(...overlapsBetween([t], p.texts.filter((x) => x !== t)).map((o) => `text-text ${o}`));
  return out;
}

/** Pairs of `a` x `b` (or within `a` when `b` is omitted) whose boxes overlap, by name. */
export function overlapsBetween(a: readonly Labeled[], b?: readonly Labeled[]): string[] {
  const out: string[] = [];
  a.forEach((p, i) => {
    (b ?? a).forEach((q, j) => {
      if ((b || j > i) && meets(p.box, q.box)) out.push(`${p.name} / ${q.name}`);
    });
  });
  return out;
}
