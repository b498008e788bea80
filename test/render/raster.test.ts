// Pictures as a non-browser renderer sees them: rasterized with resvg, the
// pixels at the projected position of known nodes carry the layer's colour,
// and a spot away from every node and edge does not.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Resvg } from '@resvg/resvg-js';
import { buildTopology } from '../../render/topology.ts';
import { renderMapSvg } from '../../render/svg.ts';
import { backbone } from './fixtures.ts';

const RED = [214, 39, 40];

function raster(svg: string) {
  const img = new Resvg(svg, { font: { loadSystemFonts: false }, fitTo: { mode: 'original' } }).render();
  const px = img.pixels;
  return {
    width: img.width,
    height: img.height,
    at(x: number, y: number): number[] {
      const i = (Math.round(y) * img.width + Math.round(x)) * 4;
      return [px[i], px[i + 1], px[i + 2]];
    },
  };
}
const near = (a: number[], b: number[], tol = 40) => a.every((v, i) => Math.abs(v - b[i]) <= tol);

/** Web Mercator pixel position for Leaflet-style center/zoom on a 1200x700 frame, computed independently of the renderer. */
function mercator(lat: number, lng: number, c: { lat: number; lng: number }, zoom: number): [number, number] {
  const s = (256 * 2 ** zoom) / (2 * Math.PI);
  const y = (la: number) => Math.log(Math.tan(Math.PI / 4 + (la * Math.PI) / 360));
  return [600 + ((lng - c.lng) * Math.PI / 180) * s, 350 - (y(lat) - y(c.lat)) * s];
}

describe('rasterized map picture', () => {
  it('has the node colour at the projected positions of known nodes (viewport frame)', async () => {
    const t = await buildTopology(backbone(), { name: 'Backbone', layout: 'geographic' });
    const center = { lat: 42, lng: -105 }, zoom = 4;
    const svg = renderMapSvg({ name: 'Demo', configuration: { background: '#ffffff', viewport: { center, zoom }, layers: [{ name: 'B', color: '#d62728', mapjson: JSON.stringify(t) }] } });
    const img = raster(svg);
    assert.deepEqual([img.width, img.height], [1200, 700]);
    for (const [name, lat, lng] of [['DEN1', 39.7, -105.0], ['CHI1', 41.9, -87.6], ['SEA1', 47.6, -122.3]] as const) {
      const [x, y] = mercator(lat, lng, center, zoom);
      assert.ok(near(img.at(x, y), RED), `${name} at ${x.toFixed(1)},${y.toFixed(1)} is ${img.at(x, y)}`);
    }
    // Far from any node or edge (south-east of the frame): background or land shade, not the layer colour.
    assert.ok(!near(img.at(1150, 650), RED));
    assert.ok(img.at(1150, 650)[0] > 200, 'a light background there');
  });

  it('has the node colour where the fitted picture places nodes', async () => {
    const t = await buildTopology(backbone(), { name: 'Backbone', layout: 'logical' });
    const svg = renderMapSvg({ configuration: { background: '#ffffff', layers: [{ color: '#d62728', mapjson: JSON.stringify(t) }] } });
    const img = raster(svg);
    const [vx, vy] = /viewBox="(-?[\d.]+) (-?[\d.]+)/.exec(svg)!.slice(1).map(Number);
    // Nodes are drawn as translate(x,y) groups; the default logical pill is white with an outline in the layer colour.
    const spots = [...svg.matchAll(/translate\((-?[\d.]+),(-?[\d.]+)\)/g)].map((m) => [Number(m[1]) - vx, Number(m[2]) - vy]);
    assert.equal(spots.length, 4);
    for (const [x, y] of spots) {
      const c = img.at(x, y);
      assert.ok(c[0] > 240 && c[1] > 240, `the pill's white fill at ${x},${y}: ${c}`);
      // The 1.5 px outline on the pill's top edge, about 9 px above its centre: the pixel row it covers most depends on
      // sub-pixel placement (a schematic places nodes at any fraction of a pixel), so the rows around it are looked at.
      const edges = [8, 8.5, 9, 9.5, 10].map((d) => img.at(x, y - d));
      assert.ok(edges.some((c) => near(c, RED, 60)), `the pill's outline above ${x},${y}: ${edges.join(' / ')}`);
    }
  });
});
