// A drawing's geometry read back from what a viewer gets, to judge a layout
// the same way whoever drew it: our SVG (nodes, edges, clusters as the
// renderer writes them) or Graphviz's `dot -Tjson` (nodes, B-spline edges,
// clusters), as render/drawing-geometry.ts's Drawing, which counts crossings
// and edges drawn through nodes.
import { execFileSync, spawnSync } from 'node:child_process';
import type { Element } from '@xmldom/xmldom';
import type { Drawing, Line, P, Rect } from '../../render/drawing-geometry.ts';
import { parseSvg } from '../render/svg-check.ts';

export const inside = (r: Rect, outer: Rect, tol = 0.5) =>
  r.x >= outer.x - tol && r.y >= outer.y - tol && r.x + r.w <= outer.x + outer.w + tol && r.y + r.h <= outer.y + outer.h + tol;

const num = (el: Element, a: string) => Number(el.getAttribute(a) ?? 0);
const childrenNamed = (el: Element, name: string) => Array.from(el.childNodes).filter((c) => c.nodeName === name) as Element[];

/** Points of an SVG path of M/L commands (our logical edges are polylines). */
function polyline(d: string): P[] {
  const nums = (d.match(/-?\d*\.?\d+(?:e-?\d+)?/gi) ?? []).map(Number);
  if (/[^MLml\d\s.,eE-]/.test(d)) throw new Error(`not a polyline: ${d.slice(0, 60)}`);
  const pts: P[] = [];
  for (let i = 0; i + 1 < nums.length; i += 2) pts.push([nums[i], nums[i + 1]]);
  return pts;
}

/**
 * Our picture's geometry. A node is a `<g transform="translate(x,y)">` with a
 * `<title>` (its name) and its template's shapes; its box is the union of its
 * template's rects and circles. Edges are the titled paths of the edge groups;
 * each end is matched to the node whose centre it starts or ends on.
 */
export function svgDrawing(svg: string): Drawing {
  const doc = parseSvg(svg);
  const root = doc.documentElement!;
  const [, , width, height] = (root.getAttribute('viewBox') ?? '0 0 0 0').split(/\s+/).map(Number);
  const nodes = new Map<string, Rect>();
  const centres: [string, P][] = [];
  const clusters = new Map<string, { box: Rect; title?: Rect }>();
  for (const g of Array.from(doc.getElementsByTagName('g'))) {
    const m = /^translate\(([-\d.e]+),([-\d.e]+)\)$/.exec(g.getAttribute('transform') ?? '');
    const title = childrenNamed(g, 'title')[0]?.textContent ?? '';
    if (m && title) {
      const [x, y] = [Number(m[1]), Number(m[2])];
      let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
      for (const r of Array.from(g.getElementsByTagName('rect'))) {
        x0 = Math.min(x0, num(r, 'x')); y0 = Math.min(y0, num(r, 'y'));
        x1 = Math.max(x1, num(r, 'x') + num(r, 'width')); y1 = Math.max(y1, num(r, 'y') + num(r, 'height'));
      }
      for (const c of Array.from(g.getElementsByTagName('circle'))) {
        const r = num(c, 'r');
        x0 = Math.min(x0, num(c, 'cx') - r); y0 = Math.min(y0, num(c, 'cy') - r);
        x1 = Math.max(x1, num(c, 'cx') + r); y1 = Math.max(y1, num(c, 'cy') + r);
      }
      if (Number.isFinite(x0)) nodes.set(title, { x: x + x0, y: y + y0, w: x1 - x0, h: y1 - y0 });
      centres.push([title, [x, y]]);
    }
    if ((g.parentNode as Element | null)?.getAttribute('class') === 'clusters') {
      const rect = childrenNamed(g, 'rect')[0];
      clusters.set(title, { box: { x: num(rect, 'x'), y: num(rect, 'y'), w: num(rect, 'width'), h: num(rect, 'height') } });
    }
  }
  // Titles are drawn over the edges, one text per cluster in the clusters' order.
  const texts = Array.from(doc.getElementsByTagName('g')).filter((g) => g.getAttribute('class') === 'cluster-titles').flatMap((g) => childrenNamed(g, 'text'));
  if (texts.length !== clusters.size) throw new Error(`${clusters.size} clusters but ${texts.length} titles`);
  [...clusters.values()].forEach((c, i) => {
    const text = texts[i], fs = num(text, 'font-size') || 11, label = text.textContent ?? '';
    c.title = { x: num(text, 'x'), y: num(text, 'y') - fs / 2, w: label.length * fs * 0.6, h: fs };
  });
  const nodeAt = (p: P) => centres.find(([, c]) => Math.abs(c[0] - p[0]) < 0.02 && Math.abs(c[1] - p[1]) < 0.02)?.[0] ?? '';
  const lines: Line[] = [];
  for (const path of Array.from(doc.getElementsByTagName('path'))) {
    const group = path.parentNode as unknown as Element;
    if (group.getAttribute('stroke-linecap') !== 'round' || childrenNamed(path, 'title').length === 0) continue;
    const pts = polyline(path.getAttribute('d') ?? '');
    lines.push({ a: nodeAt(pts[0]), b: nodeAt(pts[pts.length - 1]), pts });
  }
  return { nodes, lines, clusters, width, height };
}

export const hasDot = () => spawnSync('dot', ['-V'], { stdio: 'ignore' }).status === 0;

/** A graph for dot: nodes with our sizes (inches at 72 dpi, fixed), groups as subgraph clusters titled with their name, edges as the data gives them. */
export function dotSource(t: { nodes: { name: string; children?: string[]; meta: Record<string, unknown> }[]; edges: { meta: { endpoint_identifiers: Record<string, unknown[]> } }[] }, rankdir: 'LR' | 'TB'): string {
  const q = (s: string) => JSON.stringify(s);
  const byName = new Map(t.nodes.map((n) => [n.name, n]));
  const inGroup = new Set(t.nodes.flatMap((n) => n.children ?? []));
  const leaf = (n: { name: string; meta: Record<string, unknown> }) =>
    `${q(n.name)} [width=${Number(n.meta.computed_width) / 72} height=${Number(n.meta.computed_height) / 72}];`;
  const cluster = (g: { name: string; children?: string[] }): string =>
    `subgraph ${q(`cluster_${g.name}`)} { label=${q(g.name)}; ${(g.children ?? []).map((c) => {
      const n = byName.get(c)!;
      return n.children ? cluster(n) : leaf(n);
    }).join(' ')} }`;
  const body = t.nodes.filter((n) => !inGroup.has(n.name)).map((n) => (n.children ? cluster(n) : leaf(n)));
  const edges = t.edges.map((e) => { const [a, b] = e.meta.endpoint_identifiers.names as string[]; return `${q(a)} -- ${q(b)};`; });
  return `graph G { rankdir=${rankdir}; fontsize=11; node [shape=box fixedsize=true label=""]; ${body.join(' ')} ${edges.join(' ')} }`;
}

/** Points along cubic Bézier segments (dot's spline control points). */
function bezier(ctrl: P[], steps = 16): P[] {
  const out: P[] = [ctrl[0]];
  for (let i = 0; i + 3 < ctrl.length; i += 3) {
    const [p0, p1, p2, p3] = ctrl.slice(i, i + 4);
    for (let k = 1; k <= steps; k++) {
      const t = k / steps, u = 1 - t;
      const f = (j: 0 | 1) => u * u * u * p0[j] + 3 * u * u * t * p1[j] + 3 * u * t * t * p2[j] + t * t * t * p3[j];
      out.push([f(0), f(1)]);
    }
  }
  return out;
}

/** `dot -Tjson` (or another Graphviz engine's: `neato`, nodes kept apart) of `source`, read back as a drawing (edges sampled along their splines). */
export function dotDrawing(source: string, engine: 'dot' | 'neato' = 'dot'): Drawing {
  const args = engine === 'neato' ? ['-Tjson', '-Goverlap=false', '-Gsplines=false'] : ['-Tjson'];
  const out = JSON.parse(execFileSync(engine, args, { input: source, maxBuffer: 1 << 28 }).toString());
  const names: string[] = [];
  const nodes = new Map<string, Rect>();
  const clusters = new Map<string, { box: Rect }>();
  for (const o of out.objects ?? []) {
    names.push(o.name);
    if (o.pos) {
      const [x, y] = o.pos.split(',').map(Number), w = o.width * 72, h = o.height * 72;
      nodes.set(o.name, { x: x - w / 2, y: y - h / 2, w, h });
    } else if (o.bb) {
      const [x0, y0, x1, y1] = o.bb.split(',').map(Number);
      clusters.set(String(o.label ?? o.name), { box: { x: x0, y: y0, w: x1 - x0, h: y1 - y0 } });
    }
  }
  const lines: Line[] = (out.edges ?? []).map((e: { tail: number; head: number; pos: string }) => ({
    a: names[e.tail], b: names[e.head],
    pts: bezier(e.pos.split(' ').filter((s) => !/^[se],/.test(s)).map((s) => s.split(',').map(Number) as P)),
  }));
  const [x0, y0, x1, y1] = String(out.bb).split(',').map(Number);
  return { nodes, lines, clusters, width: x1 - x0, height: y1 - y0 };
}
