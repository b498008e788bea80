// The one SVG sanitizer. Everything the service emits as SVG - node templates
// rendered into topology JSON (`meta.svg`), dataset pictures, map pictures - is
// serialized by `serialize()` below, which writes only allowlisted SVG
// elements and attributes, with every text and attribute value XML-escaped.
// Because it is also the serializer, nothing can reach the output without
// passing through it. It walks any W3C-like DOM: @xmldom/xmldom trees
// (parsed templates) and svgdom trees (pictures built with svg.js).
//
// Removed: <script>, <foreignObject>, <style>, SMIL (<set>, <animate*>),
// <a>, <image>, <iframe> and anything else not listed (with their subtree);
// event handlers (on*) and any attribute not listed; href/xlink:href except a
// local "#fragment" on <use>, <textPath> and paint servers; javascript:,
// vbscript: and data: anywhere in a value (also after entity decoding and
// with whitespace removed); url() other than url(#fragment); in style and
// presentation attributes (read as CSS; not id, class and other names),
// escapes, expression(), @import and any function but colours, transforms,
// filters, shapes, easings and arithmetic (image-set() and the like fetch by
// string); comments, processing
// instructions and DOCTYPEs (entities are refused by the parser, see parse.ts).

export const SVG_NS = 'http://www.w3.org/2000/svg';
const XLINK_NS = 'http://www.w3.org/1999/xlink';

const ELEMENTS = new Set([
  'svg', 'g', 'defs', 'title', 'desc', 'symbol', 'use',
  'rect', 'circle', 'ellipse', 'line', 'polyline', 'polygon', 'path',
  'text', 'tspan', 'textPath',
  'linearGradient', 'radialGradient', 'stop', 'pattern', 'clipPath', 'mask', 'marker',
  'filter', 'feGaussianBlur', 'feOffset', 'feFlood', 'feComposite', 'feMerge', 'feMergeNode',
  'feColorMatrix', 'feBlend', 'feDropShadow', 'feMorphology',
]);

/** Elements on which a local href (#fragment) is meaningful. */
const HREF_ELEMENTS = new Set(['use', 'textPath', 'linearGradient', 'radialGradient', 'pattern', 'filter']);

const ATTRIBUTES = new Set([
  'id', 'class', 'style', 'transform', 'viewBox', 'preserveAspectRatio', 'width', 'height', 'version',
  'x', 'y', 'x1', 'y1', 'x2', 'y2', 'cx', 'cy', 'r', 'rx', 'ry', 'fx', 'fy', 'fr', 'd', 'points', 'pathLength',
  'fill', 'fill-opacity', 'fill-rule', 'stroke', 'stroke-width', 'stroke-opacity', 'stroke-dasharray',
  'stroke-dashoffset', 'stroke-linecap', 'stroke-linejoin', 'stroke-miterlimit', 'opacity', 'color',
  'visibility', 'display', 'overflow', 'paint-order', 'vector-effect', 'shape-rendering', 'text-rendering',
  'clip-path', 'clip-rule', 'mask', 'filter', 'marker-start', 'marker-mid', 'marker-end',
  'font-family', 'font-size', 'font-weight', 'font-style', 'font-variant', 'text-anchor', 'dominant-baseline',
  'alignment-baseline', 'baseline-shift', 'letter-spacing', 'word-spacing', 'text-decoration', 'writing-mode',
  'dx', 'dy', 'rotate', 'textLength', 'lengthAdjust', 'startOffset', 'method', 'spacing', 'side',
  'offset', 'stop-color', 'stop-opacity', 'gradientUnits', 'gradientTransform', 'spreadMethod',
  'clipPathUnits', 'maskUnits', 'maskContentUnits', 'patternUnits', 'patternContentUnits', 'patternTransform',
  'markerWidth', 'markerHeight', 'markerUnits', 'refX', 'refY', 'orient',
  'filterUnits', 'primitiveUnits', 'stdDeviation', 'in', 'in2', 'result', 'mode', 'operator', 'k1', 'k2', 'k3', 'k4',
  'flood-color', 'flood-opacity', 'lighting-color', 'values', 'type', 'radius', 'color-interpolation-filters',
  'role', 'xml:space', 'lang', 'href', 'xlink:href', 'pointer-events',
]);

const DATA_OR_ARIA = /^(data|aria)-[a-z0-9][a-z0-9_.-]{0,60}$/;
const LOCAL_FRAGMENT = /^#[A-Za-z_][\w.:-]{0,200}$/;
const URL_FUNC = /url\s*\(/gi;
const LOCAL_URL_FUNC = /url\(\s*(['"]?)#[A-Za-z_][\w.:-]{0,200}\1\s*\)/gi;
const BAD_SCHEME = /(javascript|vbscript|livescript|data):/;
const BAD_CSS = /(expression\(|@import|behavio(u)?r\s*:|-moz-binding|\\|<\/)/;
/**
 * CSS functions a presentation attribute or style may call: colours,
 * transforms, filter functions and arithmetic; url() is checked on its own
 * (local fragments only). Any other, such as image-set(), image(),
 * cross-fade() or src(), could name a resource by a string.
 */
const CSS_FUNCTIONS = new Set([
  'url', 'rgb', 'rgba', 'hsl', 'hsla', 'hwb', 'lab', 'lch', 'oklab', 'oklch', 'color', 'color-mix', 'light-dark',
  'translate', 'translatex', 'translatey', 'translatez', 'translate3d', 'scale', 'scalex', 'scaley', 'scalez', 'scale3d',
  'rotate', 'rotatex', 'rotatey', 'rotatez', 'rotate3d', 'skew', 'skewx', 'skewy', 'matrix', 'matrix3d', 'perspective',
  'blur', 'brightness', 'contrast', 'drop-shadow', 'grayscale', 'hue-rotate', 'invert', 'opacity', 'saturate', 'sepia',
  'circle', 'ellipse', 'inset', 'polygon', 'rect', 'xywh', 'path',
  'cubic-bezier', 'steps', 'linear', 'calc', 'min', 'max', 'clamp', 'var',
]);
/** Runs of name characters, each with the `(` after it if any: one linear pass (a pattern anchored on `(` would backtrack over every run). */
const CSS_NAME_RUN = /[-a-z0-9]+\(?/g;
/** Attributes that are names or plain text, never read as CSS. */
const NOT_CSS = new Set(['id', 'class', 'role', 'lang', 'xml:space', 'in', 'in2', 'result']);
// XML 1.0 forbids most C0 controls, lone surrogates and U+FFFE/FFFF; a
// spreadsheet cell containing one must not make the picture unparseable.
// (a control-character pattern on purpose: see biome.jsonc)
const INVALID_XML_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Element nesting the serializer writes at most (deeper content is left out); templates deeper are refused. */
export const MAX_DEPTH = 64;
const PLAIN_WITH_PARENS = /^[\w\s.,()#%+\-/]*$/;
const UNSAFE_CHARS = /[:(&\\@<\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028\u2029\ufeff]/;

// Most values need no escaping; testing first avoids allocating seven copies of every string.
const TEXT_SPECIAL = /[&<>\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF\uD800-\uDFFF]/;
const ATTR_SPECIAL = /[&<>"'\t\n\r\u0000-\u001F\uFFFE\uFFFF\uD800-\uDFFF]/;

export function escapeText(s: string): string {
  if (!TEXT_SPECIAL.test(s)) return s;
  return s.replace(INVALID_XML_CHARS, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function escapeAttr(s: string): string {
  if (!ATTR_SPECIAL.test(s)) return s;
  return s
    .replace(INVALID_XML_CHARS, '')
    .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;').replace(/'/g, '&#39;')
    .replace(/\t/g, '&#9;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;');
}

/** Decodes character references and drops whitespace/controls, the way URL schemes are read by browsers. */
function normalizeForCheck(value: string): string {
  return value
    .replace(/&#x([0-9a-f]+);?/gi, (_, h) => safeCodePoint(parseInt(h, 16)))
    .replace(/&#([0-9]+);?/g, (_, d) => safeCodePoint(parseInt(d, 10)))
    .replace(/&colon;/gi, ':').replace(/&(tab|newline);/gi, '')
    // (a control-character pattern on purpose: see biome.jsonc)
    .replace(/[\s\u0000-\u001F\u007F-\u009F\u200B-\u200F\u2028\u2029\uFEFF]+/g, '')
    .toLowerCase();
}

function safeCodePoint(n: number): string {
  return Number.isFinite(n) && n >= 0 && n <= 0x10ffff ? String.fromCodePoint(n) : '';
}

function attributeNameAllowed(name: string): boolean {
  return ATTRIBUTES.has(name) || DATA_OR_ARIA.test(name);
}

/** Returns the value to keep, or null to drop the attribute. */
export function checkAttribute(element: string, name: string, value: string): string | null {
  const isHref = name === 'href' || name === 'xlink:href';
  if (!attributeNameAllowed(name)) return null;
  if (value.length > 10_000_000) return null;
  if (isHref) return HREF_ELEMENTS.has(element) && LOCAL_FRAGMENT.test(value.trim()) ? value.trim() : null;
  // Fast path (path data, numbers, plain colours): without these characters a value can carry
  // no URL scheme, no url(), no CSS escape, no expression() and no @import.
  if (!UNSAFE_CHARS.test(value)) return value;
  // Second fast path (transforms, rgb()): parentheses but no scheme colon, entity, escape, quote or
  // url/expression; without a quote or url() no CSS function can name a resource.
  if (PLAIN_WITH_PARENS.test(value) && !/url|expression/i.test(value)) return value;
  const norm = normalizeForCheck(value);
  if (BAD_SCHEME.test(norm)) return null;
  if (norm.includes('url(')) {
    const all = value.match(URL_FUNC)?.length ?? 0;
    const local = value.match(LOCAL_URL_FUNC)?.length ?? 0;
    if (all !== local || normalizeForCheck(value.replace(LOCAL_URL_FUNC, '')).includes('url(')) return null;
  }
  // Browsers read style and presentation attributes as CSS, where an escape
  // (u\72l) can spell any function and image-set('…') fetches without url().
  if (!NOT_CSS.has(name) && !DATA_OR_ARIA.test(name)) {
    if (BAD_CSS.test(norm)) return null;
    for (const [run] of norm.matchAll(CSS_NAME_RUN)) {
      if (run.endsWith('(') && !CSS_FUNCTIONS.has(run.slice(0, -1))) return null;
    }
  }
  return value;
}

/** The parts of a DOM node the walker reads; both xmldom and svgdom provide them. */
export interface DomLike {
  nodeType: number;
  nodeName: string;
  localName?: string | null;
  namespaceURI?: string | null;
  data?: string;
  childNodes: ArrayLike<DomLike>;
  attributes?: ArrayLike<{ name: string; localName?: string | null; namespaceURI?: string | null; value: string }>;
}

/**
 * Where the walker writes. The default writes final text; the template
 * compiler (template.ts) substitutes one that turns `{{ }}` placeholders into
 * holes filled per node - and filled values go through `text`/`attribute`
 * below at that time, so they are escaped and checked like everything else.
 */
export interface Sink {
  raw(s: string): void;
  text(data: string): void;
  /** An allowlisted attribute name; the sink checks and escapes the value. */
  attribute(element: string, name: string, value: string): void;
}

/** Writes one attribute if its value passes `checkAttribute`. */
export function writeAttribute(out: string[], element: string, name: string, value: string): void {
  const v = checkAttribute(element, name, value);
  if (v !== null) out.push(' ', name, '="', escapeAttr(v), '"');
}

function stringSink(out: string[]): Sink {
  return {
    raw: (s) => out.push(s),
    text: (d) => out.push(escapeText(d)),
    attribute: (el, n, v) => writeAttribute(out, el, n, v),
  };
}

/**
 * One element written directly, for pictures with thousands of similar
 * elements (edges, node groups) that would otherwise cost a DOM node each:
 * the same rules as a walked element (allowlisted name, each attribute
 * checked and escaped). `content` is written as is, so it must itself be
 * output of this module: escapeText, serialize, template output (see
 * safe-markup.ts) or another elementMarkup.
 */
export function elementMarkup(name: string, attrs: Readonly<Record<string, string>>, content = ''): string {
  if (!ELEMENTS.has(name)) return '';
  // Concatenated, not pushed and joined: written for each of thousands of circuits, nodes and anchors.
  let out = `<${name}`;
  for (const key of Object.keys(attrs)) {
    const v = checkAttribute(name, key, attrs[key]); // checks name and value, as writeAttribute
    if (v !== null) out += ` ${key}="${escapeAttr(v)}"`;
  }
  return content === '' ? `${out}/>` : `${out}>${content}</${name}>`;
}

/** An element's sanitized content: one string, or strings written in order. */
export type Inner = string | readonly string[];

export interface SerializeOptions {
  /**
   * Elements whose content is an already-sanitized string produced by this
   * module (escapeText, elementMarkup, or serialize/template output via
   * safe-markup.ts), or a list of such strings written one after another
   * (thousands of circuits: joined once, in the document, not first apart),
   * written in place of their children. The element itself and its
   * attributes are still checked here. Keyed by node identity, so page data
   * cannot claim it.
   */
  inner?: WeakMap<object, Inner>;
  /** Emit xmlns on the outermost element (a standalone document). */
  root?: boolean;
}

/** Serializes `node` keeping only what the allowlists permit. */
export function serialize(node: DomLike, options: SerializeOptions = {}): string {
  const out: string[] = [];
  walk(node, stringSink(out), options.inner, options.root === true, 0);
  return out.join('');
}

/** Walks `node` into `sink`: the one place that decides which elements and attribute names survive. */
export function walk(node: DomLike, sink: Sink, inner: WeakMap<object, Inner> | undefined, root: boolean, depth: number): void {
  if (node.nodeType === 3 || node.nodeType === 4) {
    sink.text(node.data ?? '');
    return;
  }
  if (node.nodeType === 9 || node.nodeType === 11) {
    for (let i = 0; i < node.childNodes.length; i++) walk(node.childNodes[i], sink, inner, root, depth);
    return;
  }
  if (node.nodeType !== 1 || depth > MAX_DEPTH) return; // comments, PIs, doctypes
  const name = node.localName ?? node.nodeName;
  if (!ELEMENTS.has(name) || node.namespaceURI !== SVG_NS) return;
  sink.raw(`<${name}`);
  if (root) sink.raw(` xmlns="${SVG_NS}"`);
  const attrs = node.attributes;
  if (attrs) {
    const seen: string[] = [];
    for (let i = 0; i < attrs.length; i++) {
      const a = attrs[i];
      const an = a.name === 'xlink:href' || (a.namespaceURI === XLINK_NS && a.localName === 'href') ? 'href' : a.name;
      // href and xlink:href both become href: keep the first only.
      if (seen.includes(an) || !attributeNameAllowed(an)) continue;
      seen.push(an);
      sink.attribute(name, an, String(a.value ?? ''));
    }
  }
  const content = inner?.get(node);
  if (typeof content === 'string') {
    sink.raw(content === '' ? '/>' : `>${content}</${name}>`);
    return;
  }
  if (content !== undefined) {
    if (content.length === 0) sink.raw('/>');
    else {
      sink.raw('>');
      for (const part of content) sink.raw(part);
      sink.raw(`</${name}>`);
    }
    return;
  }
  const kids = node.childNodes;
  if (kids.length === 0) {
    sink.raw('/>');
    return;
  }
  sink.raw('>');
  for (let i = 0; i < kids.length; i++) walk(kids[i], sink, inner, false, depth + 1);
  sink.raw(`</${name}>`);
}
