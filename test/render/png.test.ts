// render/png.ts: the picture's pixel size read from its root, the size limits,
// and text drawn with the shipped font whatever family the SVG names (no
// system font is ever loaded, so this holds on a machine with none).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PICTURE_FONT_FAMILY } from '../../render/picture-font.ts';
import { cpuMs } from '../helpers/cpu-time.ts';
import { checkPngSize, pictureSize, rasterize, renderPng } from '../../render/png.ts';

const LIMITS = { maxSide: 8192, maxPixels: 16_777_216 };
const svg = (text: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="160" height="40" viewBox="0 0 160 40"><rect width="160" height="40" fill="#ffffff"/>${text}</svg>`;
const label = (family: string) => svg(`<text x="4" y="28" font-size="20" font-family="${family}">FRA1 Wien</text>`);

describe('pictureSize', () => {
  const cases: Array<[string, string, { width: number; height: number }]> = [
    ['width and height', '<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="700" viewBox="0 0 10 10">', { width: 1200, height: 700 }],
    ['fractions round to the nearest pixel, as resvg does', '<svg width="1172.55" height="449.2px">', { width: 1173, height: 449 }],
    ['viewBox only', '<svg viewBox="-29 -35 300.5 200">', { width: 301, height: 200 }],
    ['percentages: the viewBox', '<svg width="100%" height="100%" viewBox="0 0 640 480">', { width: 640, height: 480 }],
    ['nothing: 100 x 100, as resvg', '<svg xmlns="http://www.w3.org/2000/svg">', { width: 100, height: 100 }],
  ];
  for (const [name, root, size] of cases) it(name, () => assert.deepEqual(pictureSize(`${root}</svg>`), size));
});

describe('checkPngSize', () => {
  it('at the limits passes; one pixel over a side or over the budget is 422 naming both', () => {
    checkPngSize({ width: 100, height: 50 }, { maxSide: 100, maxPixels: 5000 });
    assert.throws(() => checkPngSize({ width: 101, height: 10 }, { maxSide: 100, maxPixels: 5000 }),
      (e: any) => e.status === 422 && /101 x 10 px: a PNG is at most 100 px on a side/.test(e.message));
    assert.throws(() => checkPngSize({ width: 100, height: 51 }, { maxSide: 100, maxPixels: 5000 }),
      (e: any) => e.status === 422 && /\(5100 px\): a PNG is at most 5000 px in all/.test(e.message));
  });
});

describe('how far a drawing may reach beyond the picture (1,000,000 px)', () => {
  // resvg's rasterizer aborts the whole process on a shape some 5 x 10^8 px out: these must be refused, not drawn.
  const wide = (shape: string) => `<svg xmlns="http://www.w3.org/2000/svg" width="800" height="467" viewBox="0 0 1200 700"><g transform="translate(600 350)">${shape}</g></svg>`;
  const cases: Array<[string, string, RegExp | null]> = [
    ['a shape 8,000 units wide', '<rect x="-4000" y="-4000" width="8000" height="8000" fill="red"/>', null],
    ['a rect 10^9 units wide', '<rect x="-1e9" y="-1e9" width="1e9" height="1e9" fill="red"/>', /667142644 px beyond its edges/],
    ['a small rect under nested scales', '<g transform="scale(1000)"><g transform="scale(1000)"><rect x="-1000" y="-1000" width="1000" height="1000"/></g></g>', /667142644 px beyond/],
    ['a stroke 2 x 10^9 wide', '<rect x="-5" y="-5" width="10" height="10" fill="none" stroke="red" stroke-width="2e9"/>', /px beyond its edges/],
  ];
  for (const [name, shape, refused] of cases) {
    it(`${name}: ${refused ? '422 from rasterize and renderPng' : 'drawn'}`, async () => {
      if (!refused) {
        assert.ok(rasterize(wide(shape)).length > 0);
        return;
      }
      const named = (e: any) => e.status === 422 && refused.test(e.message) && /within 1000000 px/.test(e.message);
      assert.throws(() => rasterize(wide(shape)), named);
      await assert.rejects(renderPng(wide(shape), LIMITS), named);
    });
  }
});

describe('filter regions of a PNG', () => {
  // 36 markers on a 1200 x 700 view drawn 2400 px wide, as a public map of a template with a blur; resvg filters each
  // use's whole region and cannot be stopped: 16 s of CPU at 4000 px with regions 256 units out, over a minute and 1.9 GB for
  // a region in box units around a rect 8000 units wide, 53 s under scale(20). Held to one picture of pixels in all,
  // the transforms that enlarge them counted, each is about a second.
  const markers = (filter: string, shape: string) => {
    const nodes = Array.from({ length: 36 }, (_, i) => `<g transform="translate(${50 + (i % 9) * 130} ${80 + Math.floor(i / 9) * 160})">${filter}${shape}</g>`);
    return `<svg xmlns="http://www.w3.org/2000/svg" width="2400" height="1400" viewBox="0 0 1200 700">${nodes.join('')}</svg>`;
  };
  const cases: Array<[string, string, string]> = [
    ['a blur 20,000 units out in user space', '<filter id="b" x="-20000" y="-20000" width="40000" height="40000" filterUnits="userSpaceOnUse"><feGaussianBlur stdDeviation="200"/></filter>', '<circle r="5" fill="red" filter="url(#b)"/>'],
    ['a blur in box units around a rect 8000 units wide', '<filter id="b"><feGaussianBlur stdDeviation="3"/></filter>', '<rect x="-4000" y="-4000" width="8000" height="8000" fill="red" filter="url(#b)"/>'],
    ['a blur under the template\'s own scale(20)', '<filter id="b" x="-256" y="-256" width="512" height="512" filterUnits="userSpaceOnUse"><feGaussianBlur stdDeviation="3"/></filter>', '<g transform="scale(20)"><circle r="5" fill="red" filter="url(#b)"/></g>'],
    ['a CSS blur() on a rect 8000 units wide (drawn unfiltered)', '', '<rect x="-4000" y="-4000" width="8000" height="8000" fill="red" style="filter: blur(5px)"/>'],
    ['a blur drawn by a <use> scaled 20 times, in a style', '<filter id="b" x="-256" y="-256" width="512" height="512" filterUnits="userSpaceOnUse"><feGaussianBlur stdDeviation="3"/></filter>', '<defs><g id="d"><circle r="5" fill="red" filter="url(#b)"/></g></defs><use href="#d" style="transform: scale(4)" transform="scale(5)"/>'],
  ];
  for (const [name, filter, shape] of cases) {
    it(`${name}: drawn within a few seconds of CPU`, () => {
      const { ms, result } = cpuMs(() => rasterize(markers(filter, shape)));
      assert.ok(result.length > 0);
      assert.ok(ms < 3000, `${Math.round(ms)} ms of CPU`);
    });
  }

  it('a blur near its marker is still drawn', () => {
    const one = (filter: string) => `<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100" viewBox="0 0 100 100"><g transform="translate(50 50)">${filter}<circle r="10" fill="red"${filter ? ' filter="url(#s)"' : ''}/></g></svg>`;
    const blurred = rasterize(one('<filter id="s" x="-30" y="-30" width="60" height="60" filterUnits="userSpaceOnUse"><feGaussianBlur stdDeviation="4"/></filter>'));
    assert.ok(!Buffer.from(blurred).equals(Buffer.from(rasterize(one('')))), 'the blur changes the picture');
  });
});

describe('renderPng', () => {
  it('draws text in the shipped font, whatever family the SVG names', async () => {
    const shipped = await renderPng(label(PICTURE_FONT_FAMILY), LIMITS);
    assert.ok(!shipped.equals(await renderPng(svg(''), LIMITS)), 'the text is drawn');
    for (const family of ['Helvetica, Arial, sans-serif', 'serif', 'monospace', 'No Such Font']) {
      assert.ok(shipped.equals(await renderPng(label(family), LIMITS)), `${family}: drawn in DejaVu Sans`);
    }
  });

  it('refuses a picture over the limits before drawing it', async () => {
    await assert.rejects(renderPng(svg('').replace('width="160"', 'width="9000"'), LIMITS), /9000 x 40 px/);
  });
});

describe('renderPng at once', () => {
  it('many pictures asked together are all drawn, each as when drawn alone', async () => {
    const alone = await renderPng(label(PICTURE_FONT_FAMILY), LIMITS);
    const together = await Promise.all(Array.from({ length: 7 }, () => renderPng(label(PICTURE_FONT_FAMILY), LIMITS)));
    for (const png of together) assert.ok(png.equals(alone));
  });
});
