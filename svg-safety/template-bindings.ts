// Attribute values computed per node, written so the template stays valid
// SVG before any substitution: `<rect x="-30" data-jinja-x="{{ label_x }}"/>`.
// An SVG viewer (Terranova's raw template preview, a browser) sees x="-30",
// a valid length, and an unknown data- attribute; the renderer sees x filled
// from the Jinja in data-jinja-x. `x="{{ label_x }}"` still works, but a
// placeholder in a length or number attribute is an SVG error in any viewer
// that parses the template as it is (each one logs "Expected length").
//
// The binding is applied to the parsed template before the sanitizer's walk:
// the target attribute takes the binding's value where it stands (so the
// filled-in markup is what `x="{{ label_x }}"` gives, byte for byte), or is
// added when absent, and the data-jinja- attribute itself is removed. The
// value is then an ordinary attribute value: its Jinja is read and its
// filled-in result checked by the same rules as any attribute's.
import type { DomLike } from './sanitize.ts';

const PREFIX = 'data-jinja-';

interface Attr {
  name: string;
  value: string;
}

interface MutableElement {
  attributes: ArrayLike<Attr>;
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
}

/** Applies every `data-jinja-<name>` of the tree under `root` (in place); returns `root`. */
export function applyBindings(root: DomLike): DomLike {
  const pending: DomLike[] = [root];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    if (node.nodeType !== 1) continue;
    bind(node as unknown as MutableElement);
    for (let i = 0; i < node.childNodes.length; i++) pending.push(node.childNodes[i]);
  }
  return root;
}

function bind(el: MutableElement): void {
  const attrs = Array.from(el.attributes);
  const bindings = attrs.filter((a) => a.name.startsWith(PREFIX) && a.name.length > PREFIX.length);
  for (const binding of bindings) {
    const target = binding.name.slice(PREFIX.length);
    el.removeAttribute(binding.name);
    const existing = attrs.find((a) => a.name === target);
    // Changing the value of the attribute node keeps its place among the others.
    if (existing) existing.value = binding.value;
    else el.setAttribute(target, binding.value);
  }
}
