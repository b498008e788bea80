// How wide a label is drawn, erring wide: label placement reserves this box,
// and the text must fit inside it whichever sans-serif font the viewer has
// (Chromium picks Liberation Sans or DejaVu Sans for "Helvetica, Arial"; a
// PNG may use another). The widths are DejaVu Sans's advances (the widest of
// those) in ems, rounded up, plus 4%.

const EM: Record<string, number> = {};
const set = (chars: string, w: number) => { for (const c of chars) EM[c] = w; };
set(' .,:;\'|!`', 0.33);
set('iljI', 0.3);
set('ftJ()[]{}/\\"-', 0.4);
set('r', 0.42);
set('sz*^', 0.53);
set('cvxyk_?', 0.6);
set('eo', 0.62);
set('bdghnpqu0123456789$#+<=>~LTFPEZYSa', 0.64);
set('ABKRVX', 0.7);
set('CDGHNOQU&', 0.79);
set('w%', 0.83);
set('M', 0.87);
set('mW@', 1.0);

/** Width in px of `text` at `fontPx`, an upper bound for common sans-serif fonts. */
export function textWidth(text: string, fontPx: number): number {
  let w = 0;
  for (const ch of text) {
    const known = EM[ch];
    if (known !== undefined) w += known;
    else {
      const cp = ch.codePointAt(0)!;
      // Wide scripts (CJK, Hangul) and emoji take a full em or more; other letters (accented Latin, Cyrillic, Greek) at most a wide capital.
      w += cp >= 0x1f000 ? 1.3 : cp >= 0x2e80 ? 1.05 : 0.8;
    }
  }
  return w * fontPx * 1.04;
}
