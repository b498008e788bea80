// Test helper: the boxes a picture draws, read back from its SVG - each
// placed label (class "labels": its text at the group's font size), each leaf
// node (class "nodes": its template markup around its translate), the legend
// (class "legend": its frame) - and the overlaps between them. Text widths
// are the renderer's conservative estimate (render/text-width.ts); the
// Chromium test checks that real glyph boxes lie inside these boxes.
import type { Rect } from '../../render/box-index.ts';
import { markerBox } from '../../render/marker-box.ts';
import { textWidth } from '../../render/text-width.ts';
import { parseSvg } from './svg-check.ts';

type El = Element;

export interface Labeled { name: string; box: Rect }

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
  const nodes: Labeled[] = [];
  const titles: string[] = [];
  for (const g of byClass(doc, 'nodes')) {
    for (const node of kids(g)) {
      const m = /translate\((-?[\d.]+),(-?[\d.]+)\)/.exec(node.getAttribute('transform') ?? '');
      if (!m) throw new Error('a node without its position');
      const [title, ...drawn] = kids(node);
      const name = title.localName === 'title' ? title.textContent ?? '' : '';
      titles.push(name);
      const outer = drawn[0];
      const markup = drawn.map((d) => d.toString()).join('');
      const b = markerBox(markup, Number(outer?.getAttribute('data-width')) || 10, Number(outer?.getAttribute('data-height')) || 10);
      const x = Number(m[1]), y = Number(m[2]);
      nodes.push({ name, box: { x0: x + b.x0, y0: y + b.y0, x1: x + b.x1, y1: y + b.y1 } });
    }
  }
  const legendRect = byClass(doc, 'legend').map((g) => g.getElementsByTagName('rect')[0]).find(Boolean);
  const legend = legendRect ? {
    x0: num(legendRect, 'x'), y0: num(legendRect, 'y'),
    x1: num(legendRect, 'x') + num(legendRect, 'width'), y1: num(legendRect, 'y') + num(legendRect, 'height'),
  } : null;
  const leaders = byClass(doc, 'leaders').flatMap((g) => Array.from(g.getElementsByTagName('line')))
    .map((l) => [num(l, 'x1'), num(l, 'y1'), num(l, 'x2'), num(l, 'y2')] as const);
  const viewBox = String(root.getAttribute('viewBox')).split(' ').map(Number);
  return { doc, root, labels, nodes, titles, legend, leaders, viewBox };
}

const meets = (a: Rect, b: Rect) => a.x0 < b.x1 - 0.01 && b.x0 < a.x1 - 0.01 && a.y0 < b.y1 - 0.01 && b.y0 < a.y1 - 0.01;

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
