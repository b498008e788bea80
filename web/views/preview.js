// The composer's preview: the layers of an unsaved map's output drawn as
// plain SVG in the page (nodes as dots, edges as lines, in each layer's
// colour), longitude across and latitude up. The saved map's own picture is
// the service's; this one only shows what the layers hold.
const NS = 'http://www.w3.org/2000/svg';

const el = (tag, attrs) => {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
};

const topologyOf = (layer) => {
  try {
    return typeof layer.mapjson === 'string' ? JSON.parse(layer.mapjson) : layer.mapjson ?? {};
  } catch {
    return {};
  }
};

export function drawPreview(output) {
  const layers = (output.layers ?? output.configuration?.layers ?? []).map((l) => ({ color: l.color ?? '#1f77b4', topo: topologyOf(l) }));
  const points = layers.flatMap(({ topo }) => [...(topo.nodes ?? []).map((n) => n.coordinate), ...(topo.edges ?? []).flatMap((e) => e.coordinates ?? [])])
    .filter((p) => Array.isArray(p) && p.length >= 2);
  const counts = layers.map(({ topo }) => `${topo.nodes?.length ?? 0} nodes, ${topo.edges?.length ?? 0} edges`).join('; ');
  const svg = el('svg', { viewBox: '0 0 800 450', role: 'img', 'aria-label': `Preview: ${counts || 'no layers'}` });
  if (!points.length) return svg;
  const lats = points.map((p) => p[0]);
  const lngs = points.map((p) => p[1]);
  const [minLat, maxLat, minLng, maxLng] = [Math.min(...lats), Math.max(...lats), Math.min(...lngs), Math.max(...lngs)];
  const scale = Math.min(760 / Math.max(maxLng - minLng, 1e-6), 410 / Math.max(maxLat - minLat, 1e-6));
  // Centred in the frame, whichever side the drawing fills.
  const left = (800 - (maxLng - minLng) * scale) / 2;
  const bottom = 450 - (450 - (maxLat - minLat) * scale) / 2;
  const x = (p) => left + (p[1] - minLng) * scale;
  const y = (p) => bottom - (p[0] - minLat) * scale;
  for (const { color, topo } of layers) {
    for (const e of topo.edges ?? []) {
      const pts = (e.coordinates ?? []).map((p) => `${x(p).toFixed(1)},${y(p).toFixed(1)}`).join(' ');
      if (pts) svg.append(el('polyline', { points: pts, fill: 'none', stroke: color, 'stroke-width': 1.5 }));
    }
    for (const n of topo.nodes ?? []) {
      if (Array.isArray(n.coordinate)) svg.append(el('circle', { cx: x(n.coordinate).toFixed(1), cy: y(n.coordinate).toFixed(1), r: 3, fill: color }));
    }
  }
  return svg;
}
