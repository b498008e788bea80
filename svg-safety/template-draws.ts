// What a node template draws: whether sanitized markup draws anything, and
// which of the template's elements the sanitizer left out (the template's
// warnings name them, and a node left with nothing gets the default marker).
import { MAX_DEPTH, SVG_NS, elementMarkup, type DomLike } from './sanitize.ts';

const SHAPES = new Set(['rect', 'circle', 'ellipse', 'line', 'polyline', 'polygon', 'path', 'use']);
const TEXTS = new Set(['text', 'tspan', 'textPath']);
/** Content of these is not drawn where it stands (definitions, metadata). */
const UNDRAWN = new Set(['defs', 'symbol', 'clipPath', 'mask', 'pattern', 'marker', 'linearGradient', 'radialGradient', 'filter', 'title', 'desc']);
const MARKUP_TOKEN = /<(\/?)([A-Za-z][\w:.-]*)[^>]*?(\/?)>|([^<]+)/g;

/** Whether sanitizer output draws anything: a shape, or text with something in it, outside definitions. */
export function drawsSomething(svg: string): boolean {
  const stack: string[] = [];
  let undrawn = 0;
  let inText = 0;
  for (const m of svg.matchAll(MARKUP_TOKEN)) {
    const [, close, name, selfClosing, chars] = m;
    if (chars !== undefined) {
      if (undrawn === 0 && inText > 0 && /\S/.test(chars)) return true;
      continue;
    }
    if (close) {
      const n = stack.pop();
      if (n && UNDRAWN.has(n)) undrawn--;
      if (n && TEXTS.has(n)) inText--;
      continue;
    }
    if (undrawn === 0 && SHAPES.has(name)) return true;
    if (selfClosing) continue;
    stack.push(name);
    if (UNDRAWN.has(name)) undrawn++;
    if (TEXTS.has(name)) inText++;
  }
  return false;
}

/** Elements of the template the sanitizer leaves out (outermost only), and whether any of them held text. */
export function droppedElements(root: DomLike): { names: string[]; text: boolean } {
  const names = new Set<string>();
  let text = false;
  const holdsText = (node: DomLike): boolean => {
    const stack = [node];
    while (stack.length) {
      const n = stack.pop()!;
      if ((n.nodeType === 3 || n.nodeType === 4) && /\S/.test(n.data ?? '')) return true;
      for (let i = 0; i < n.childNodes.length; i++) stack.push(n.childNodes[i]);
    }
    return false;
  };
  const stack: [DomLike, number][] = [];
  for (let i = 0; i < root.childNodes.length; i++) stack.push([root.childNodes[i], 1]);
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (node.nodeType !== 1 || depth > MAX_DEPTH) continue;
    const name = node.localName ?? node.nodeName;
    if (node.namespaceURI !== SVG_NS || elementMarkup(name, {}) === '') {
      names.add(name);
      text ||= holdsText(node);
      continue;
    }
    for (let i = 0; i < node.childNodes.length; i++) stack.push([node.childNodes[i], depth + 1]);
  }
  return { names: [...names].sort(), text };
}
