// Node templates: SVG fragments with `{{ name }}`, `{{ endpoint_name }}` and
// `{{ meta.<field> }}` placeholders (DESIGN: Output). A template is parsed and
// sanitized once (compileTemplate); the placeholders become holes that are
// filled per node with escaped values, and a value landing in an attribute is
// checked by the sanitizer's attribute rules at fill time, so node data can
// neither add markup nor smuggle a URL into an attribute.
import { parseFragment, FragmentError } from './parse.ts';
import { walk, escapeText, writeAttribute, MAX_DEPTH, type Sink, type DomLike } from './sanitize.ts';
import { markSafe } from './safe-markup.ts';
import { idScoper } from './template-ids.ts';

/** The node templates used when none is given; the core service stores them as documents on first start. */
export const DEFAULT_TEMPLATES = {
  geographic: {
    name: 'Default geographic marker',
    template:
      '<g data-width="10" data-height="10"><circle r="5" stroke="#ffffff" stroke-width="1.5"/></g>',
  },
  logical: {
    name: 'Default logical label',
    // label_width / label_x are extra variables sized from the name, so the pill fits its text;
    // currentColor is the layer colour in pictures (the node group sets `color`).
    template:
      '<g data-width="{{ label_width }}" data-height="18">' +
      '<rect x="{{ label_x }}" y="-9" width="{{ label_width }}" height="18" rx="9" fill="#ffffff" stroke="currentColor" stroke-width="1.5"/>' +
      '<text text-anchor="middle" dominant-baseline="central" font-size="10" fill="#222222" stroke="none">{{ endpoint_name }}</text></g>',
  },
} as const;

export interface TemplateContext {
  name: string;
  endpoint_name?: unknown;
  meta: Record<string, unknown>;
}

export interface RenderedNode {
  svg: string;
  width: number | null;
  height: number | null;
}

export interface CompiledTemplate {
  render(ctx: TemplateContext): RenderedNode;
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w-]*(?:\.[^\s{}]+)?)\s*\}\}/g;
const LABEL_FONT_PX = 10;

/** Rough width of a label at 10px sans-serif: good enough to size a pill and a picture's margins. */
export function estimateTextWidth(text: string, fontPx = LABEL_FONT_PX): number {
  let w = 0;
  for (const ch of text) w += /[ilI.,:;'|!]/.test(ch) ? 0.3 : /[mwMW@]/.test(ch) ? 0.85 : /[A-Z0-9]/.test(ch) ? 0.65 : 0.55;
  return w * fontPx;
}

function display(v: unknown): string {
  if (v == null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return v.map(display).join(', ');
  return '';
}

function lookup(path: string, ctx: TemplateContext): string {
  const label = display(ctx.endpoint_name ?? ctx.name);
  if (path === 'name') return ctx.name;
  if (path === 'endpoint_name') return display(ctx.endpoint_name ?? ctx.name);
  if (path === 'label_width') return String(Math.round(estimateTextWidth(label) + 16));
  if (path === 'label_x') return String(-Math.round((estimateTextWidth(label) + 16) / 2));
  if (path.startsWith('meta.')) {
    const key = path.slice(5);
    if (Object.hasOwn(ctx.meta, key)) return display(ctx.meta[key]);
    let cur: unknown = ctx.meta;
    for (const part of key.split('.')) {
      if (cur == null || typeof cur !== 'object' || !Object.hasOwn(cur, part)) return '';
      cur = (cur as Record<string, unknown>)[part];
    }
    return display(cur);
  }
  return '';
}

const fill = (s: string, ctx: TemplateContext) => s.replace(PLACEHOLDER, (_, p: string) => lookup(p, ctx));
const hasHole = (s: string) => s.includes('{{');

type Part = string | ((ctx: TemplateContext, out: string[]) => void);

/** Compiles well-formed markup; throws FragmentError (message suitable for a 422) otherwise. */
export function compileTemplate(markup: string): CompiledTemplate {
  const root = parseFragment(markup);
  const scope = idScoper(markup, root);
  const parts: Part[] = [];
  const sink: Sink = {
    raw: (s) => parts.push(s),
    text: (d) => parts.push(hasHole(d) ? (ctx, out) => out.push(escapeText(fill(d, ctx))) : escapeText(d)),
    attribute: (el, n, v) => {
      if (!hasHole(v)) {
        const out: string[] = [];
        writeAttribute(out, el, n, scope(n, v));
        parts.push(out.join(''));
      } else parts.push((ctx, out) => writeAttribute(out, el, n, scope(n, fill(v, ctx))));
    },
  };
  for (let i = 0; i < root.childNodes.length; i++) walk(root.childNodes[i], sink, undefined, false, 0);
  // Merge adjacent static strings so rendering is a short loop.
  const merged: Part[] = [];
  for (const p of parts) {
    const last = merged[merged.length - 1];
    if (typeof p === 'string' && typeof last === 'string') merged[merged.length - 1] = last + p;
    else merged.push(p);
  }
  return {
    render(ctx) {
      const out: string[] = [];
      for (const p of merged) typeof p === 'string' ? out.push(p) : p(ctx, out);
      const svg = markSafe(out.join(''));
      return { svg, width: sizeAttr(svg, 'data-width'), height: sizeAttr(svg, 'data-height') };
    },
  };
}

/** The first data-width / data-height in the rendered markup, as Terranova reads it. */
function sizeAttr(svg: string, attr: string): number | null {
  const m = new RegExp(`${attr}="([0-9]+(?:\\.[0-9]+)?)"`).exec(svg);
  return m ? Number(m[1]) : null;
}

// Things a template author clearly meant to run are refused with a message
// rather than silently stripped; everything else unsafe (foreignObject,
// external references, unknown elements) is stripped at render time, so
// templates written for Terranova (whose default uses foreignObject) still load.
const ACTIVE_ELEMENTS = new Set(['script', 'set', 'animate', 'animatemotion', 'animatetransform', 'handler', 'listener']);
const SCHEME = /(javascript|vbscript|data):/;

function findActive(node: DomLike, depth = 1): string | null {
  if (node.nodeType !== 1) return null;
  // The serializer leaves out anything deeper; and a recursion this deep is bounded.
  if (depth > MAX_DEPTH) return `must not nest elements more than ${MAX_DEPTH} levels deep`;
  const name = node.localName ?? node.nodeName;
  if (ACTIVE_ELEMENTS.has(name.toLowerCase())) return `must not contain <${name}> elements`;
  const attrs = node.attributes ?? [];
  for (let i = 0; i < attrs.length; i++) {
    const a = attrs[i];
    const an = (a.localName ?? a.name).toLowerCase();
    if (an.startsWith('on')) return `must not contain event-handler attributes (${a.name})`;
    // eslint-disable-next-line no-control-regex
    if (SCHEME.test(String(a.value).replace(/[\s\u0000-\u001f]+/g, '').toLowerCase())) return `must not contain javascript:, vbscript: or data: URLs (in ${a.name})`;
  }
  for (let i = 0; i < node.childNodes.length; i++) {
    const found = findActive(node.childNodes[i], depth + 1);
    if (found) return found;
  }
  return null;
}

/** For template create/update: null when acceptable, else a human sentence for the 422 detail. */
export function checkTemplate(markup: unknown): string | null {
  if (typeof markup !== 'string' || markup.trim() === '') return 'template must be a non-empty string of SVG markup';
  let root: DomLike;
  try {
    root = parseFragment(markup);
  } catch (e) {
    if (e instanceof FragmentError) return `template ${e.message}`;
    throw e;
  }
  let elements = 0;
  for (let i = 0; i < root.childNodes.length; i++) {
    const child = root.childNodes[i];
    if (child.nodeType !== 1) continue;
    elements++;
    const found = findActive(child);
    if (found) return `template ${found}`;
  }
  return elements === 0 ? 'template must contain at least one SVG element' : null;
}
