// svgdom ships no types; this is the one function the renderer uses.
declare module 'svgdom' {
  export function createSVGWindow(): Window & typeof globalThis;
}
