// Node templates: SVG fragments filled in per node (docs/api.md: Templates, and
// Node templates and Jinja). The placeholders `{{ name }}`,
// `{{ endpoint_name }}` and `{{ meta.<field> }}` work as they always did; the
// rest of the safe Jinja subset (jinja.ts: filters, `{% if %}` blocks,
// comments) is read by our own interpreter, never run as code.
//
// A template is parsed and sanitized once (compileTemplate): the sanitizer's
// walk writes the allowlisted markup as a stream, in which text holding Jinja
// becomes literal text, holes and block tags, and an attribute holding Jinja
// becomes a small template of its own whose value is checked by the
// sanitizer's attribute rules at fill time. So node data can neither add
// markup nor smuggle a URL into an attribute, and a `{% if %}` can only choose
// among markup the sanitizer already wrote. A block must close within the
// element it opens in (then every choice of branches is well-formed).
//
// Markup the sanitizer drops (HTML in <foreignObject>, as in Terranova's
// default logical template) can leave a node with nothing to draw: such a
// node is drawn with a default marker instead, and the template's `warnings`
// say so (the template save answer carries them).
import { JINJA, balance, buildTree, pieceItem, textTree, type IfNode, type Item, type TNode } from './template-tree.ts';
import { drawsSomething, droppedElements } from './template-draws.ts';
import { parseFragment, FragmentError } from './parse.ts';
import { walk, escapeText, writeAttribute, MAX_DEPTH, type Sink, type DomLike } from './sanitize.ts';
import { markSafe } from './safe-markup.ts';
import { idScoper } from './template-ids.ts';
import { applyBindings } from './template-bindings.ts';
import { lex } from './jinja.ts';
import { evaluate } from './jinja-eval.ts';
import type { Expr } from './jinja-expression.ts';
import { Budget, display, LimitError, MAX_VALUE_CHARS, truthy, UNDEFINED, WORK_BUDGET, type Scope, type Value } from './jinja-values.ts';

/** The node templates used when none is given; the core service stores them as documents on first start. */
export const DEFAULT_TEMPLATES = {
  geographic: {
    name: 'Default geographic marker',
    template:
      '<g data-width="10" data-height="10"><circle r="5" stroke="#ffffff" stroke-width="1.5"/></g>',
  },
  logical: {
    name: 'Default logical label',
    // label_width / label_x are extra variables sized from the name, so the pill fits its text; they
    // reach x and width through data-jinja- bindings, so the template is valid SVG before substitution
    // (x="-30" and width="60" are what a viewer of the raw template draws). currentColor is the layer
    // colour in pictures (the node group sets `color`).
    template:
      '<g data-width="{{ label_width }}" data-height="18">' +
      '<rect x="-30" y="-9" width="60" height="18" rx="9" fill="#ffffff" stroke="currentColor" stroke-width="1.5" ' +
      'data-jinja-x="{{ label_x }}" data-jinja-width="{{ label_width }}"/>' +
      '<text text-anchor="middle" dominant-baseline="central" font-size="10" fill="#222222" stroke="none">{{ endpoint_name }}</text></g>',
  },
} as const;

export interface TemplateContext {
  name: string;
  endpoint_name?: unknown;
  meta: Record<string, unknown>;
}

interface RenderedNode {
  svg: string;
  width: number | null;
  height: number | null;
  /** Present when the template drew nothing once sanitized and the default marker stands in. */
  fallback?: true;
}

export interface CompiledTemplate {
  render(ctx: TemplateContext): RenderedNode;
  /**
   * Why saving this template is refused (422): Jinja outside the subset,
   * blocks that do not close within their element. When such a template is
   * rendered anyway (stored by other means), each of these is written out as
   * the text it is, never run.
   */
  readonly problems: readonly string[];
  /** What its author should know though it renders: markup that is removed, the default marker standing in, capped output. */
  readonly warnings: readonly string[];
}

export interface CompileOptions {
  /**
   * Which default marker stands in for a node the template leaves empty.
   * Without it: the logical label when the removed markup held text (a label
   * the author meant to show), else the geographic marker.
   */
  fallback?: keyof typeof DEFAULT_TEMPLATES;
}

/** Characters all of one node's filled-in values may take together; values beyond are cut. */
const MAX_NODE_VALUE_CHARS = 100_000;

const LABEL_FONT_PX = 10;
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Rough width of a label at 10px sans-serif: good enough to size a pill and a picture's margins. */
function estimateTextWidth(text: string, fontPx = LABEL_FONT_PX): number {
  let w = 0;
  for (const ch of text) w += /[ilI.,:;'|!]/.test(ch) ? 0.3 : /[mwMW@]/.test(ch) ? 0.85 : /[A-Z0-9]/.test(ch) ? 0.65 : 0.55;
  return w * fontPx;
}

const labelWidth = (ctx: TemplateContext) => Math.round(estimateTextWidth(display(ctx.endpoint_name ?? ctx.name)) + 16);

/** The original placeholder lookup, unchanged: a meta key holding dots first, then nested keys; own keys only. */
function lookup(path: string, ctx: TemplateContext): string {
  if (path === 'name') return ctx.name;
  if (path === 'endpoint_name') return display(ctx.endpoint_name ?? ctx.name);
  if (path === 'label_width') return String(labelWidth(ctx));
  if (path === 'label_x') return String(-Math.round(labelWidth(ctx) / 2));
  if (path.startsWith('meta.')) {
    const key = path.slice(5);
    if (Object.hasOwn(ctx.meta, key) && !UNSAFE_KEYS.has(key)) return display(ctx.meta[key]);
    let cur: unknown = ctx.meta;
    for (const part of key.split('.')) {
      if (cur == null || typeof cur !== 'object' || UNSAFE_KEYS.has(part) || !Object.hasOwn(cur, part)) return '';
      cur = (cur as Record<string, unknown>)[part];
    }
    return display(cur);
  }
  return '';
}

/** The names a Jinja expression can read: the node's, as Terranova passes them (plus the label sizes). */
function variable(ctx: TemplateContext, name: string): Value {
  switch (name) {
    case 'name': return ctx.name;
    case 'endpoint_name': return ctx.endpoint_name ?? ctx.name;
    case 'meta': return ctx.meta;
    case 'label_width': return labelWidth(ctx);
    case 'label_x': return -Math.round(labelWidth(ctx) / 2);
    default: return UNDEFINED;
  }
}


const fallbacks: Partial<Record<keyof typeof DEFAULT_TEMPLATES, CompiledTemplate>> = {};
function fallbackTemplate(kind: keyof typeof DEFAULT_TEMPLATES): CompiledTemplate {
  return (fallbacks[kind] ??= compileTemplate(DEFAULT_TEMPLATES[kind].template));
}

const ENTITY_REF = /^&(#\d+|#x[0-9a-fA-F]+|[A-Za-z][\w.-]*);/;

/**
 * Jinja written as Terranova renders it, on the raw text: `{% if a < b %}` or
 * `{{ "R&D" }}` are not well-formed XML. Inside `{{ }}`, `{% %}` and `{# #}`
 * only, `<` and a `&` that starts no reference become references, which the
 * parser turns back into the characters the author wrote.
 */
function escapeInJinja(markup: string): string {
  const out: string[] = [];
  const unclosed = new Set<string>();
  let last = 0;
  for (let at = markup.indexOf('{'); at >= 0; at = markup.indexOf('{', at + 1)) {
    const kind = markup[at + 1];
    const close = kind === '{' ? '}}' : kind === '%' ? '%}' : kind === '#' ? '#}' : null;
    if (close === null || unclosed.has(close)) continue;
    const end = markup.indexOf(close, at + 2);
    if (end < 0) {
      unclosed.add(close); // none later either: each kind is searched for once past its last close (linear time)
      continue;
    }
    const construct = markup.slice(at, end + 2);
    out.push(markup.slice(last, at), construct.replace(/<|&/g, (c, i: number) =>
      c === '<' ? '&lt;' : ENTITY_REF.test(construct.slice(i, i + 40)) ? '&' : '&amp;'));
    last = end + 2;
    at = end + 1;
  }
  out.push(markup.slice(last));
  return out.join('');
}

/**
 * parseFragment, and for markup that is well-formed only once its Jinja is read as text, that reading;
 * `data-jinja-<name>` attributes then bound to their targets (template-bindings.ts).
 */
function parseTemplate(markup: string): DomLike {
  return applyBindings(parseRaw(markup));
}

function parseRaw(markup: string): DomLike {
  try {
    return parseFragment(markup);
  } catch (e) {
    if (!(e instanceof FragmentError) || !JINJA.test(markup)) throw e;
    const escaped = escapeInJinja(markup);
    if (escaped === markup) throw e;
    try {
      return parseFragment(escaped);
    } catch {
      throw e;
    }
  }
}

/** Compiles well-formed markup; throws FragmentError (message suitable for a 422) otherwise. Jinja problems are listed, not thrown. */
export function compileTemplate(markup: string, options: CompileOptions = {}): CompiledTemplate {
  const root = parseTemplate(markup);
  const scope = idScoper(markup, root);
  const problems: string[] = [];
  const problem = (m: string) => { if (!problems.includes(m) && problems.length < 20) problems.push(m); };
  const items: Item[] = [];
  // The walk's raw() writes an element as '<name', its attributes, then '/>' or '>' children '</name>'.
  const sink: Sink = {
    raw: (s) => {
      if (s.startsWith('</')) items.push({ k: 'close' });
      items.push({ k: 'markup', s });
      if (s === '>') items.push({ k: 'open' });
    },
    text: (d) => {
      if (!JINJA.test(d)) items.push({ k: 'text', s: d });
      else for (const p of lex(d, problem)) items.push(pieceItem(p));
    },
    attribute: (el, n, v) => {
      const body = JINJA.test(v) ? textTree(v, problem) : [v];
      if (body.every((x) => typeof x === 'string')) {
        const out: string[] = [];
        writeAttribute(out, el, n, scope(n, body.join('')));
        items.push({ k: 'markup', s: out.join('') });
      } else items.push({ k: 'attr', el, name: n, body });
    },
  };
  for (let i = 0; i < root.childNodes.length; i++) walk(root.childNodes[i], sink, undefined, false, 0);
  balance(items, problem);
  const tree = buildTree(items, true);

  const dropped = droppedElements(root);
  const fallbackKind = options.fallback ?? (dropped.text ? 'logical' : 'geographic');

  interface State { scope: Scope; room: number }
  const value = (n: { expr: Expr | null; legacy: string | null }, ctx: TemplateContext, st: State): string => {
    let s: string;
    if (n.legacy !== null) s = lookup(n.legacy, ctx);
    else {
      try {
        s = display(evaluate(n.expr!, st.scope));
      } catch (e) {
        if (!(e instanceof LimitError)) throw e;
        s = '';
      }
    }
    if (s.length > st.room) s = s.slice(0, st.room);
    st.room -= s.length;
    return s;
  };
  const choose = (node: IfNode, st: State): TNode[] => {
    for (const b of node.branches) {
      try {
        if (truthy(evaluate(b.cond, st.scope))) return b.body;
      } catch (e) {
        if (!(e instanceof LimitError)) throw e;
      }
    }
    return node.otherwise ?? [];
  };
  const plain = (nodes: TNode[], ctx: TemplateContext, st: State, out: string[]): void => {
    for (const n of nodes) {
      if (typeof n === 'string') out.push(n);
      else if (n.k === 'out') out.push(value(n, ctx, st));
      else if (n.k === 'if') plain(choose(n, st), ctx, st, out);
    }
  };
  const markupOf = (nodes: TNode[], ctx: TemplateContext, st: State, out: string[]): void => {
    for (const n of nodes) {
      if (typeof n === 'string') out.push(n);
      else if (n.k === 'out') out.push(escapeText(value(n, ctx, st)));
      else if (n.k === 'attr') {
        const text: string[] = [];
        plain(n.body, ctx, st, text);
        writeAttribute(out, n.el, n.name, scope(n.name, text.join('')));
      } else markupOf(choose(n, st), ctx, st, out);
    }
  };
  const draw = (ctx: TemplateContext): { node: RenderedNode; limited: boolean } => {
    const st: State = { scope: { variable: (name) => variable(ctx, name), budget: new Budget() }, room: MAX_NODE_VALUE_CHARS };
    const out: string[] = [];
    markupOf(tree, ctx, st, out);
    const svg = out.join('');
    const limited = st.scope.budget.exhausted || st.scope.budget.capped || st.room === 0;
    // Only where the sanitizer removed something: a template that draws nothing on purpose stays so.
    if (dropped.names.length > 0 && !drawsSomething(svg)) {
      return { node: { ...fallbackTemplate(fallbackKind).render(ctx), fallback: true }, limited };
    }
    return { node: { svg: markSafe(svg), width: sizeAttr(svg, 'data-width'), height: sizeAttr(svg, 'data-height') }, limited };
  };

  const warnings: string[] = [];
  if (dropped.names.length > 0) {
    const list = dropped.names.map((n) => `<${n}>`).join(', ');
    warnings.push(`${list} ${dropped.names.length === 1 ? 'is' : 'are'} removed when the template is drawn: node templates are SVG only (no HTML, scripts, styles, links or images)`);
    // Whether any choice of branches could draw something: every branch's markup, values as a character.
    const everything = items.map((it) => (it.k === 'markup' ? it.s : it.k === 'text' ? escapeText(it.s) : it.k === 'out' ? 'x' : '')).join('');
    if (!drawsSomething(everything)) {
      warnings.push(`the template draws nothing once ${list} ${dropped.names.length === 1 ? 'is' : 'are'} removed, so nodes are drawn with the default ${fallbackKind === 'logical' ? 'label' : 'marker'} instead`);
    }
  }
  const sample = draw({ name: 'example', endpoint_name: 'example', meta: {} });
  if (sample.limited) {
    warnings.push(`values are cut: a node's filled-in values may take ${MAX_NODE_VALUE_CHARS} characters in all, one filter result ${MAX_VALUE_CHARS}, and a node's filters ${WORK_BUDGET} characters of work`);
  }
  for (const p of problems) warnings.push(`${p}; it is not run (drawn as the text it is, or as nothing)`);

  return {
    render: (ctx) => draw(ctx).node,
    problems,
    warnings,
  };
}

/** What the author of `markup` should know (the template save answer's `warnings`); [] when it does not compile. */
export function templateWarnings(markup: string): string[] {
  try {
    return [...compileTemplate(markup).warnings];
  } catch (e) {
    if (e instanceof FragmentError) return [];
    throw e;
  }
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
    // (a control-character pattern on purpose: see biome.jsonc)
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
    root = parseTemplate(markup);
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
  if (elements === 0) return 'template must contain at least one SVG element';
  const { problems } = compileTemplate(markup);
  return problems.length > 0 ? `template: ${problems[0]}` : null;
}
