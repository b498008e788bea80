// The gallery: the public maps for everyone; every map (with its picture)
// once signed in. Maps with live layers refresh their pictures.
import { hasRoute, request, signedIn } from '../api.js';
import { fail, h, page, when } from '../ui.js';

/** Seconds in a step as the API writes it: a number of seconds, or "60s", "5m", "1h". */
const seconds = (step) => {
  if (typeof step === 'number') return step;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(String(step ?? ''));
  return m ? Number(m[1]) * { ms: 0.001, s: 1, m: 60, h: 3600 }[m[2] ?? 's'] : 0;
};

let steps;
/** Each traffic source's step in seconds, where the service has traffic sources (and the user may list them). */
export function trafficSteps() {
  if (!signedIn()) return Promise.resolve(new Map()); // listing the sources needs the read scope
  steps ??= (async () => {
    if (!(await hasRoute('GET', '/api/v1/traffic/sources/'))) return new Map();
    const sources = await request('/api/v1/traffic/sources/').catch(() => []);
    return new Map((Array.isArray(sources) ? sources : Object.values(sources)).map((s) => [s.name, seconds(s.step)]));
  })();
  return steps;
}

/** How often a live map's picture is fetched again, in seconds: its traffic sources' shortest step, else a minute; 0 for a map without live layers. */
export function refreshSeconds(map, stepOf = new Map()) {
  const layers = map.configuration?.layers ?? [];
  const live = layers.filter((l) => l.traffic || l.datatype === 'live' || l.datatype === 'dynamic');
  if (!live.length) return 0;
  const known = live.map((l) => (l.traffic ? stepOf.get(l.traffic.source ?? 'demo') : undefined)).filter((s) => s > 0);
  return known.length ? Math.max(5, Math.min(...known)) : 60;
}

/** The picture of a map: the public one when it is published, else the token-only output. */
export function mapPicture(map, width, extra = {}, stepOf = new Map()) {
  const size = width ? `?width=${width}` : '';
  const priv = !map.public && signedIn();
  return h('map-picture', {
    src: priv ? `/api/v1/output/map/${map.mapId}/svg/${size}` : `/api/v1/public/output/map/${map.mapId}/svg/${size}`,
    auth: priv, alt: `Picture of the map ${map.name}`, refresh: refreshSeconds(map, stepOf) || undefined, ...extra,
  });
}

export async function gallery() {
  const list = h('ul', { class: 'cards' });
  const intro = signedIn() ? 'Every map, newest change first. Open one for its versions, the pictures of its changes, publishing and embedding.'
    : 'The published maps. Sign in to see every map and to change them.';
  page('Maps', h('p', {}, intro), list);
  let maps;
  let stepOf;
  try {
    // The configuration too: its layers say whether a map is live.
    const fields = 'fields=mapId,name,version,public,lastUpdatedOn,configuration';
    [maps, stepOf] = await Promise.all([request(signedIn() ? `/api/v1/maps/?sort=-lastUpdatedOn&${fields}` : `/api/v1/public/maps/?${fields}`), trafficSteps()]);
  } catch (e) {
    return fail(e);
  }
  if (!maps.length) list.replaceWith(h('p', {}, signedIn() ? 'No maps yet: make one with "New map".' : 'No published maps yet.'));
  for (const map of maps) {
    if (!signedIn()) map.public = true; // the public list holds published maps only
    list.append(h('li', { class: 'card' },
      h('h2', {}, h('a', { href: `#/map/${map.mapId}` }, map.name)),
      mapPicture(map, 480, {}, stepOf),
      h('p', { class: 'meta' }, `Version ${map.version}${map.public ? ', published' : ', not published'} · ${when(map.lastUpdatedOn)}`,
        refreshSeconds(map, stepOf) ? ' · live' : '')));
  }
}
