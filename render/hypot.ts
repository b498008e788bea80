// Math.hypot of two numbers, bit for bit, at a third of its cost: V8 does
// not inline the builtin (it takes any number of arguments and gathers them
// into an array first), and the layouts call it tens of millions of times
// (stress-layout.ts, once per pair of nodes per round). Its sum for two
// finite numbers is the one below: both scaled by the larger, squared and
// added, the square root scaled back; zero, NaN and infinities go to the
// builtin itself. test/render/hypot.test.ts checks the two agree, and that
// the result is never below either argument (a layout may rely on that).

export function hypot(x: number, y: number): number {
  const ax = Math.abs(x), ay = Math.abs(y);
  const max = Math.max(ax, ay);
  if (!(max > 0) || max === Infinity) return Math.hypot(x, y);
  const a = ax / max, b = ay / max;
  return Math.sqrt(a * a + b * b) * max;
}
