// The composer: a map's name and its layers picked from datasets (layout,
// template, colour, edge colour by a field, the live-traffic binding built
// from the rows' columns: source, each end's router and port, capacity), a
// live preview from the unsaved map (PATCH /api/v1/output/map/), and saving
// (a new map, or a new version with If-Match: a 412 says someone saved a
// newer version and offers to reload). Node dragging stays with Terranova's editor.
import { request } from '../api.js';
import { act, fail, h, page, say } from '../ui.js';
import { drawPreview } from './preview.js';

let uid = 0;

/** A column as a binding template names it (docs/traffic.md: `{field}`), and back. */
const asTemplate = (column) => (column ? `{${column}}` : undefined);
const columnOf = (template) => /^\{([^{}]+)\}/.exec(template ?? '')?.[1] ?? '';

function layerFields(sets, templates, sources, layer = {}) {
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
  const bound = layer.traffic ?? {};
  const edgeColorBy = select('edgeColorBy', columns(dataset.value).map(([v, t]) => [v, v ? t : 'the layer colour']), layer.edgeColorBy);
  const source = select('source', [['', 'none'], ...sources.map((x) => [x.name, `${x.name} (${x.kind})`])], bound.source);
  // Each end's router and port, and the capacity (in Gb/s), as columns of the records.
  const ends = [['aInstance', 'A end router', bound.a?.instance], ['aIfName', 'A end port', bound.a?.ifName],
    ['zInstance', 'Z end router', bound.z?.instance], ['zIfName', 'Z end port', bound.z?.ifName],
    ['capacity', 'Capacity, Gb/s', String(bound.capacity ?? '').replace(/\s*Gbps$/, '')]]
    .map(([name, label, value]) => [label, select(name, columns(dataset.value), columnOf(value))]);
  for (const [, el] of ends) el.dataset.traffic = el.name;
  source.dataset.traffic = 'source';
  dataset.addEventListener('change', () => {
    for (const el of [edgeColorBy, ...ends.map(([, e]) => e)]) el.replaceChildren(...columns(dataset.value).map(([v, t]) => h('option', { value: v }, t)));
  });
  const fieldset = h('fieldset', { class: 'layer' }, h('legend', {}, `Layer ${n}`),
    field('Layer name', h('input', { id: `name-${n}`, name: 'name', value: layer.name ?? `Layer ${n}` })),
    field('Dataset', dataset),
    field('Layout', select('layout', [['geographic', 'geographic'], ['logical', 'logical']], layer.layout)),
    field('Template', select('templateId', [['', 'default'], ...templates.map((t) => [t.templateId, t.name])], layer.templateId)),
    field('Colour', h('input', { id: `color-${n}`, name: 'color', type: 'color', value: layer.color ?? '#1f77b4' })),
    field('Edge colour by', edgeColorBy),
    field('Traffic source', source),
    ...ends.map(([label, el]) => field(label, el)),
    h('button', { type: 'button', onclick: (e) => e.currentTarget.closest('fieldset').remove() }, `Remove layer ${n}`));
  return fieldset;
}

/** The layers as the form holds them: empty choices left out. */
function layersOf(form) {
  return [...form.querySelectorAll('fieldset.layer')].map((fs) => {
    const layer = { visible: true, datatype: 'snapshot' };
    const traffic = {};
    for (const el of fs.querySelectorAll('input, select')) {
      if (el.dataset.traffic) traffic[el.dataset.traffic] = el.value;
      else if (el.value !== '') layer[el.name] = el.value;
    }
    // The layer's traffic binding (docs/traffic.md), when a source is chosen: an end without a router is left out.
    if (traffic.source) {
      const end = (instance, ifName) => (instance ? { instance: asTemplate(instance), ...(ifName ? { ifName: asTemplate(ifName) } : {}) } : undefined);
      layer.traffic = { source: traffic.source, a: end(traffic.aInstance, traffic.aIfName), z: end(traffic.zInstance, traffic.zIfName),
        ...(traffic.capacity ? { capacity: `{${traffic.capacity}} Gbps` } : {}) };
    }
    return layer;
  });
}

export async function composer(id) {
  page(id ? 'Edit a map' : 'New map');
  let sets;
  let templates;
  let sources = [];
  let map;
  let etag = null;
  try {
    [sets, templates, sources] = await Promise.all([request('/api/v1/datasets/?fields=datasetId,name,results'), request('/api/v1/templates/?fields=templateId,name'),
      request('/api/v1/traffic/sources/').catch(() => [])]);
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
  for (const layer of map?.configuration?.layers ?? [{}]) layers.append(layerFields(sets, templates, sources, layer));
  const preview = h('div', { class: 'preview', 'aria-live': 'polite' }, h('p', {}, 'The preview shows here.'));
  const save = h('button', { type: 'submit' }, 'Save');
  const form = h('form', { class: 'composer' },
    h('div', { class: 'field' }, h('label', { for: name.id }, 'Map name'), name),
    layers,
    h('div', { class: 'row' },
      h('button', { type: 'button', onclick: () => layers.append(layerFields(sets, templates, sources)) }, 'Add a layer'),
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
