// The filter regions of a picture about to be rasterized, bounded (docs/render.md:
// PNG). resvg filters each use's whole region and cannot be interrupted, so a
// render stopped at its time budget goes on natively: 36 markers with a blur
// 256 units out took 16 s of CPU at 4000 px, a region in box units around a
// rect 8000 units wide over a minute and 1.9 GB, and one under a template's
// scale(20) as long. Browsers clip filters to what is shown: only PNGs need this.

/** Most units a filter region reaches from its element's origin (the node a template draws). */
const FILTER_REACH = 256;
/** How many of the picture's own pixels all filter regions may cover together. */
const FILTER_AREA = 1;
/** A reference to a filter, as an attribute or in a style. */
const FILTER_USE = /\bfilter\s*(?:=\s*["']|:)\s*url\(/;
const NUMBER = /^\s*(-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[-+]?[0-9]+)?)\s*$/i;
/** A start, end or empty-element tag; quoted values may hold `>`. */
const TAG = /<(\/?)([A-Za-z][\w:.-]*)((?:[^>"']|"[^"]*"|'[^']*')*?)(\/?)>/g;
/** Elements whose content is drawn in a space of its own (a stroke's width, a tile, a box): a filter there is not bounded here. */
const OWN_SPACE = new Set(['marker', 'pattern', 'mask', 'clipPath']);
/** Passes over the uses of elements that use filters: deeper chains count as unbounded. */
const USE_PASSES = 8;

const patterns = new Map<string, RegExp>();
const attr = (attrs: string, name: string) => {
  let pattern = patterns.get(name);
  if (!pattern) patterns.set(name, (pattern = new RegExp(`\\s${name}\\s*=\\s*"([^"]*)"`)));
  return pattern.exec(attrs)?.[1];
};

/** An upper bound of how much `transform` (an attribute's or a style's) enlarges lengths: its matrices' Frobenius norms multiplied. */
function enlargement(transform: string | undefined): number {
  let factor = 1;
  for (const [, name, args] of (transform ?? '').matchAll(/([A-Za-z]+)\s*\(([^)]*)\)/g)) {
    const n = args.split(/[\s,]+/).filter(Boolean).map(Number);
    if (n.some((x) => !Number.isFinite(x))) continue;
    const f = name === 'matrix' && n.length >= 4 ? Math.hypot(n[0], n[1], n[2], n[3])
      : name === 'scale' && n.length > 0 ? Math.max(Math.abs(n[0]), Math.abs(n[1] ?? n[0]))
        : name === 'skewX' || name === 'skewY' ? Math.hypot(Math.SQRT2, Math.tan(((n[0] ?? 0) * Math.PI) / 180))
          : 1;
    factor *= f;
  }
  return factor;
}

const transformOf = (attrs: string) => {
  const style = /transform\s*:\s*([^;"]*)/.exec(attr(attrs, 'style') ?? '')?.[1];
  return enlargement(attr(attrs, 'transform')) * enlargement(style);
};

/**
 * The largest factor by which an element that uses a filter is drawn
 * enlarged against the root's user space: the transforms of its ancestors,
 * and of the `<use>` elements that draw it. Infinity when one is drawn in a
 * space of its own (OWN_SPACE) or by a chain of uses deeper than USE_PASSES.
 */
function filterEnlargement(svg: string): number {
  type Open = { name: string; id?: string; outer: number; inner: number };
  const stack: Open[] = [];
  let most = 0;
  const within = new Map<string, number>(); // id -> most enlargement of a filter use inside it, against its parent
  const uses: Array<{ href: string; at: number; ids: Array<{ id: string; outer: number }> }> = [];
  const raise = (id: string, value: number) => {
    if (value > (within.get(id) ?? 0)) within.set(id, value);
  };
  for (const [, close, name, attrs, empty] of svg.matchAll(TAG)) {
    if (close) {
      stack.pop();
      continue;
    }
    const outer = stack.at(-1)?.inner ?? 1;
    const inner = outer * transformOf(attrs);
    const here = { name, id: attr(attrs, 'id'), outer, inner };
    if (FILTER_USE.test(attrs)) {
      if (stack.some((o) => OWN_SPACE.has(o.name))) return Number.POSITIVE_INFINITY;
      most = Math.max(most, inner);
      for (const o of [...stack, here]) if (o.id) raise(o.id, inner / o.outer);
    }
    const href = name === 'use' ? (attr(attrs, 'href') ?? attr(attrs, 'xlink:href'))?.replace(/^#/, '') : undefined;
    if (href) uses.push({ href, at: inner, ids: [...stack, here].flatMap((o) => (o.id ? [{ id: o.id, outer: o.outer }] : [])) });
    if (!empty) stack.push(here);
  }
  for (let pass = 0; pass <= USE_PASSES; pass++) {
    let changed = false;
    for (const u of uses) {
      const drawn = u.at * (within.get(u.href) ?? 0);
      if (drawn > most) most = drawn;
      for (const o of u.ids) {
        if (drawn / o.outer > (within.get(o.id) ?? 0)) {
          within.set(o.id, drawn / o.outer);
          changed = true;
        }
      }
    }
    if (!changed) return most;
  }
  return Number.POSITIVE_INFINITY;
}

/**
 * `svg` with every filter region in user space around its element's origin,
 * at most FILTER_REACH units out and sized so that all the filters drawn
 * cover at most FILTER_AREA pictures of pixels, counting how much transforms
 * enlarge the elements that use them. `picture` is its size in px and its px
 * per unit of the root's user space.
 */
export function boundFilterRegions(drawn: string, picture: { width: number; height: number; scale: number }): string {
  const svg = withoutFilterFunctions(drawn);
  const uses = svg.split(FILTER_USE).length - 1;
  if (uses === 0) return svg;
  const pxPerUnit = picture.scale * Math.max(filterEnlargement(svg), 1);
  const reach = Math.min(FILTER_REACH, Math.sqrt((FILTER_AREA * picture.width * picture.height) / uses) / 2 / pxPerUnit);
  return svg.replace(/<filter\b[^>]*>/g, (tag) => {
    // In user space its own numbers count, held within reach; in box units (the default) the element's box is not known here.
    const user = /\sfilterUnits="userSpaceOnUse"/.test(tag);
    const given = (name: string) => {
      const m = user ? NUMBER.exec(attr(tag, name) ?? '') : null;
      return m ? Number(m[1]) : undefined;
    };
    const span = (at: number | undefined, size: number | undefined): [number, number] => {
      const from = Math.max(at ?? -reach, -reach);
      const to = Math.min(at === undefined || size === undefined ? reach : at + Math.max(size, 0), reach);
      return to > from ? [from, to - from] : [0, 0];
    };
    const [x, w] = span(given('x'), given('width'));
    const [y, h] = span(given('y'), given('height'));
    const region = ` filterUnits="userSpaceOnUse" x="${round(x)}" y="${round(y)}" width="${round(w)}" height="${round(h)}"`;
    return tag.replace(/\s(?:x|y|width|height|filterUnits)="[^"]*"/g, '').replace(/\s*(\/?)>$/, `${region}$1>`);
  });
}

/**
 * `svg` without filters written as CSS functions (`filter: blur(5px)`, in a
 * style or the attribute): their region is the element's box grown by a
 * tenth, which nothing here can bound (a rect 8000 units wide with a blur
 * ran over a minute), so the PNG draws such an element unfiltered.
 */
function withoutFilterFunctions(svg: string): string {
  return svg
    .replace(/\sfilter\s*=\s*"(?!\s*(?:url\(|none\b))[^"]*"/g, '')
    .replace(/(\sstyle\s*=\s*")([^"]*)"/g, (whole, start: string, css: string) =>
      (/filter\s*:/.test(css) ? `${start}${css.replace(/(^|;)\s*filter\s*:(?!\s*(?:url\(|none\b))[^;]*/g, '$1')}"` : whole));
}

const round = (n: number) => Math.round(n * 1000) / 1000;
