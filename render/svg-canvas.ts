// svg.js on svgdom: one server-side window registered with svg.js, and a
// fresh detached <svg> root per picture. Rendering is synchronous, so the
// global registration is never observed half-way by another request.
// svgdom is loaded by the first picture rather than at start (about 300 ms
// of module loading that a service answering only JSON never needs).
import { createRequire } from 'node:module';
import { SVG, registerWindow, type Svg, type Element as SvgElement } from '@svgdotjs/svg.js';

const require = createRequire(import.meta.url);
let registered = false;

export function newCanvas(): Svg {
  if (!registered) {
    const { createSVGWindow } = require('svgdom') as typeof import('svgdom');
    const window = createSVGWindow();
    registerWindow(window, window.document);
    registered = true;
  }
  return SVG() as Svg;
}

/** Sets plain string/number attributes directly on the DOM node (svg.js's attr() parses and converts values). */
export function setAttrs(el: SvgElement, attrs: Record<string, string | number | undefined | null>): SvgElement {
  const node = el.node as unknown as { setAttribute(n: string, v: string): void };
  for (const k of Object.keys(attrs)) {
    const v = attrs[k];
    if (v !== undefined && v !== null) node.setAttribute(k, typeof v === 'number' ? fmt(v) : v);
  }
  return el;
}

/**
 * Two decimals are sub-pixel at picture scale and keep the output small and stable. Written as String(Math.round(n *
 * 100) / 100) writes it, from the integer hundredths (a large picture writes a hundred thousand numbers, and turning
 * a fraction into text costs twice as much): below 3e11 a double is close enough to its two-decimal value that that
 * value is its shortest spelling.
 */
export function fmt(n: number): string {
  const r = Math.round(n * 100);
  if (!(r > -3e13 && r < 3e13)) return String(r / 100);
  if (r === 0) return '0';
  const a = r < 0 ? -r : r;
  const whole = Math.floor(a / 100), cents = a - whole * 100;
  const s = cents === 0 ? String(whole) : cents % 10 === 0 ? `${whole}.${cents / 10}` : `${whole}.${cents < 10 ? '0' : ''}${cents}`;
  return r < 0 ? `-${s}` : s;
}
