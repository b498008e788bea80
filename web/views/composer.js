// The composer: a map's name and its layers picked from datasets (layout,
// template, colour, edge colour, traffic fields from the rows' columns), a
// live preview from the unsaved map (PATCH /api/v1/output/map/), and saving
// (a new map, or a new version with If-Match: a 412 says someone saved a
// newer version and offers to reload). Node dragging stays with Terranova's editor.
import { request } from '../api.js';
import { act, fail, h, page, say } from '../ui.js';
import { drawPreview } from './preview.js';

let uid = 0;

function layerFields(sets, templates, layer = {}) {
  const n = ++uid;
  const field = (label, control) => h('div', { class: 'field' }, h('label', { for: control.id }, label), control);
  const select = (name, options, value) => {
    const el = h('select', { id: `${name}-${n}`, name }, options.map(([v, text]) => h('option', { value: v }, text)));
    el.value = value ?? options[0]?.[0] ?? '';
    return el;
  };
  const dataset = select('datasetId', sets.map((d) => [d.datasetId, d.name]), layer.datasetId);
  const columns = (id) => {
    const rows = sets.find((d) => d.datasetId === id)?.results ?? [];
    return [['', 'none'], ...[...new Set(rows.slice(0, 20).flatMap((r) => Object.keys(r)))].filter((k) => k !== 'endpoints').map((k) => [k, k])];
  };
  const inbound = select('inboundValueField', columns(dataset.value), layer.inboundValueField);
  const outbound = select('outboundValueField', columns(dataset.value), layer.outboundValueField);
  dataset.addEventListener('change', () => {
    for (const el of [inbound, outbound]) el.replaceChildren(...columns(dataset.value).map(([v, t]) => h('option', { value: v }, t)));
  });
  const fieldset = h('fieldset', { class: 'layer' }, h('legend', {}, `Layer ${n}`),
    field('Layer name', h('input', { id: `name-${n}`, name: 'name', value: layer.name ?? `Layer ${n}` })),
    field('Dataset', dataset),
    field('Layout', select('layout', [['geographic', 'geographic'], ['logical', 'logical']], layer.layout)),
    field('Template', select('templateId', [['', 'default'], ...templates.map((t) => [t.templateId, t.name])], layer.templateId)),
    field('Colour', h('input', { id: `color-${n}`, name: 'color', type: 'color', value: layer.color ?? '#1f77b4' })),
    field('Edge colour by', select('edgeColorBy', [['', 'the layer colour'], ['capacity', 'capacity'], ['traffic', 'traffic']], layer.edgeColorBy)),
    field('Traffic in (column)', inbound),
    field('Traffic out (column)', outbound),
    h('button', { type: 'button', onclick: (e) => e.currentTarget.closest('fieldset').remove() }, `Remove layer ${n}`));
  return fieldset;
}

/** The layers as the form holds them: empty choices left out. */
function layersOf(form) {
  return [...form.querySelectorAll('fieldset.layer')].map((fs) => {
    const layer = { visible: true, datatype: 'snapshot' };
    for (const el of fs.querySelectorAll('input, select')) if (el.value !== '') layer[el.name] = el.value;
    return layer;
  });
}

export async function composer(id) {
  page(id ? 'Edit a map' : 'New map');
  let sets;
  let templates;
  let map;
  let etag = null;
  try {
    [sets, templates] = await Promise.all([request('/api/v1/datasets/?fields=datasetId,name,results'), request('/api/v1/templates/?fields=templateId,name')]);
    if (id) {
      const res = await request(`/api/v1/map/id/${id}/`, { raw: true });
      etag = res.headers.get('ETag');
      map = await res.json();
    }
  } catch (e) {
    return fail(e);
  }
  const name = h('input', { id: 'map-name', name: 'mapName', required: true, value: map?.name ?? '' });
  const layers = h('div', { class: 'layers' });
  for (const layer of map?.configuration?.layers ?? [{}]) layers.append(layerFields(sets, templates, layer));
  const preview = h('div', { class: 'preview', 'aria-live': 'polite' }, h('p', {}, 'The preview shows here.'));
  const save = h('button', { type: 'submit' }, 'Save');
  const form = h('form', { class: 'composer' },
    h('div', { class: 'field' }, h('label', { for: name.id }, 'Map name'), name),
    layers,
    h('div', { class: 'row' },
      h('button', { type: 'button', onclick: () => layers.append(layerFields(sets, templates)) }, 'Add a layer'),
      h('button', { type: 'button', onclick: (e) => act(e.currentTarget, showPreview) }, 'Preview'),
      save));
  const revision = () => ({ name: name.value || 'Untitled map', configuration: { ...(map?.configuration ?? {}), layers: layersOf(form) }, overrides: map?.overrides ?? {} });
  async function showPreview() {
    const output = await request('/api/v1/output/map/', { method: 'PATCH', json: revision() });
    preview.replaceChildren(drawPreview(output));
  }
  let timer;
  form.addEventListener('change', () => {
    clearTimeout(timer);
    timer = setTimeout(() => showPreview().catch(fail), 400);
  });
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    act(save, async () => {
      try {
        const saved = id
          ? await request(`/api/v1/map/id/${id}/`, { method: 'PUT', json: revision(), headers: { 'If-Match': etag } })
          : await request('/api/v1/map/', { method: 'POST', json: revision() });
        say(`Saved ${saved.name}, version ${saved.version}.`);
        location.hash = `#/map/${saved.mapId}`;
      } catch (error) {
        if (error.status !== 412) throw error;
        say('Someone saved a newer version of this map meanwhile; reload it to see theirs, then make your change again.', 'error');
        form.append(h('button', { type: 'button', onclick: () => composer(id) }, 'Reload the map'));
      }
    });
  });
  page(id ? `Edit ${map.name}` : 'New map', form, h('h2', {}, 'Preview'), preview);
}
