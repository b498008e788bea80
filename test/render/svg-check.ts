// Test helper: parses emitted SVG strictly and lists anything active or external in it.
import { DOMParser } from '@xmldom/xmldom';

const FORBIDDEN_ELEMENTS = new Set(['script', 'foreignobject', 'set', 'animate', 'animatemotion', 'animatetransform', 'iframe', 'a', 'image', 'style', 'handler', 'feimage', 'tref', 'mpath', 'discard', 'object', 'embed']);

export function parseSvg(svg: string, fragment = false) {
  const src = fragment ? `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">${svg}</svg>` : svg;
  if (/<!(DOCTYPE|ENTITY)/i.test(src)) throw new Error('DOCTYPE or ENTITY in output');
  return new DOMParser({ onError: (level, msg) => { throw new Error(`${level}: ${msg}`); } }).parseFromString(src, 'image/svg+xml');
}

const norm = (v: string) => v.replace(/[\s\u0000-\u001f]+/g, '').toLowerCase();

/** Every problem found: forbidden elements, event handlers, script/data URLs, external references. */
export function activeContent(svg: string, fragment = false): string[] {
  const problems: string[] = [];
  const doc = parseSvg(svg, fragment);
  const walkPi = (n: Node): void => {
    if (n.nodeType === 7) problems.push(`processing instruction ${n.nodeName}`);
    for (let i = 0; i < n.childNodes.length; i++) walkPi(n.childNodes[i]);
  };
  walkPi(doc as unknown as Node);
  const all = doc.getElementsByTagName('*');
  for (let i = 0; i < all.length; i++) {
    const el = all[i];
    const name = (el.localName ?? el.nodeName).toLowerCase();
    if (FORBIDDEN_ELEMENTS.has(name)) problems.push(`element <${el.nodeName}>`);
    if (el.namespaceURI !== 'http://www.w3.org/2000/svg') problems.push(`foreign namespace ${el.namespaceURI}`);
    for (let j = 0; j < el.attributes.length; j++) {
      const a = el.attributes[j];
      const v = norm(a.value);
      if (/^on/i.test(a.localName ?? a.name)) problems.push(`handler ${a.name}`);
      if (/(javascript|vbscript|data):/.test(v)) problems.push(`scheme in ${a.name}=${a.value}`);
      if (/href$/i.test(a.name) && !a.value.startsWith('#')) problems.push(`external href ${a.value}`);
      const urls = v.match(/url\(([^)]*)\)/g) ?? [];
      for (const u of urls) if (!/^url\((['"]?)#/.test(u)) problems.push(`external url() in ${a.name}`);
      if (a.name === 'style' && /(expression|@import|\\)/.test(v)) problems.push(`css in style`);
    }
  }
  return problems;
}
