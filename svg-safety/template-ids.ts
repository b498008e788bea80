// A template's own ids, scoped to it: every node of a picture (and of a
// client page that inlines `meta.svg`) carries its template's markup, so two
// templates that both define `<linearGradient id="g">` would paint each
// other's nodes. Ids a template defines, and its references to them (href
// "#id", url(#id)), get a prefix made from a hash of the template's markup;
// references to ids it does not define (a page's own) are left alone, and so
// are ids that hold a placeholder (per-node ids the author chose).
import { createHash } from 'node:crypto';
import type { DomLike } from './sanitize.ts';

/** The ids `root` defines without placeholders; an explicit stack, as templates come in any depth. */
function definedIds(root: DomLike): Set<string> {
  const ids = new Set<string>();
  const stack: DomLike[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const attrs = node.attributes ?? [];
    for (let i = 0; i < attrs.length; i++) {
      const { name, value } = attrs[i];
      if (name === 'id' && value && !value.includes('{{')) ids.add(value);
    }
    for (let i = 0; i < node.childNodes.length; i++) stack.push(node.childNodes[i]);
  }
  return ids;
}

const URL_FRAGMENT = /url\(\s*(['"]?)#([^'")\s]+)/gi;

/** Rewrites an attribute value of a template whose markup is `markup` and DOM `root`; identity when it defines no ids. */
export function idScoper(markup: string, root: DomLike): (name: string, value: string) => string {
  const ids = definedIds(root);
  if (ids.size === 0) return (_name, value) => value;
  const prefix = `t${createHash('sha256').update(markup).digest('hex').slice(0, 8)}-`;
  const scoped = (id: string) => (ids.has(id) ? prefix + id : id);
  return (name, value) => {
    if (name === 'id') return scoped(value);
    if ((name === 'href' || name === 'xlink:href') && value.startsWith('#')) return `#${scoped(value.slice(1))}`;
    return value.includes('url(') ? value.replace(URL_FRAGMENT, (_m, quote: string, id: string) => `url(${quote}#${scoped(id)}`) : value;
  };
}
