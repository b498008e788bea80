// Strict parsing of SVG fragments that come from users (node templates,
// `meta.svg` of overrides and inline map JSON). A fragment is parsed inside an
// <svg> wrapper so that unprefixed elements are in the SVG namespace;
// DOCTYPE and entity declarations are refused before parsing (no entity
// expansion, no external entities), and any parser error or warning fails.
import { DOMParser } from '@xmldom/xmldom';
import { SVG_NS, serialize, type DomLike } from './sanitize.ts';

const MAX_FRAGMENT_CHARS = 64 * 1024;

export class FragmentError extends Error {}

const WRAP_OPEN = `<svg xmlns="${SVG_NS}" xmlns:xlink="http://www.w3.org/1999/xlink">`;

/** Returns the wrapper element whose children are the fragment; throws FragmentError with a readable message. */
export function parseFragment(markup: string): DomLike {
  if (markup.length > MAX_FRAGMENT_CHARS) throw new FragmentError(`is longer than ${MAX_FRAGMENT_CHARS} characters`);
  if (/<!(DOCTYPE|ENTITY|ELEMENT|ATTLIST)/i.test(markup)) throw new FragmentError('must not contain DOCTYPE or entity declarations');
  if (/<\?xml/i.test(markup)) throw new FragmentError('must be a fragment without an XML declaration');
  let first: string | undefined;
  const parser = new DOMParser({
    locator: true,
    onError: (_level: string, msg: string) => {
      first ??= String(msg).split('\n')[0].replace(/^\[xmldom \w+\]\s*/, '').slice(0, 200);
      throw new FragmentError(first);
    },
  });
  let doc;
  try {
    doc = parser.parseFromString(`${WRAP_OPEN + markup}</svg>`, 'image/svg+xml');
  } catch (e) {
    const why = first ?? String((e as Error).message).split('\n')[0].slice(0, 200);
    throw new FragmentError(`is not well-formed XML: ${why.replace(/"svg"/g, 'the end of the template')}`);
  }
  const root = doc.documentElement;
  if (root?.localName !== 'svg' || root.parentNode !== doc || doc.childNodes.length !== 1) {
    throw new FragmentError('is not a well-formed SVG fragment');
  }
  return root as unknown as DomLike;
}

/** Sanitized form of untrusted node markup (override states, inline map JSON); '' when it does not parse. */
export function sanitizeFragment(markup: string): string {
  let root: DomLike;
  try {
    root = parseFragment(markup);
  } catch {
    return '';
  }
  const out: string[] = [];
  for (let i = 0; i < root.childNodes.length; i++) out.push(serialize(root.childNodes[i]));
  return out.join('');
}
