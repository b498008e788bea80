// The gallery: the public maps for everyone; every map (with its picture)
// once signed in. Maps with live layers refresh their pictures.
import { request, signedIn } from '../api.js';
import { fail, h, page, when } from '../ui.js';

/** How often a live map's picture is fetched again, in seconds: its configured step, else a minute. */
export function refreshSeconds(map) {
  const layers = map.configuration?.layers ?? [];
  if (!layers.some((l) => l.datatype === 'live' || l.datatype === 'dynamic' || l.traffic)) return 0;
  const step = Number(map.configuration?.traffic?.stepSeconds ?? map.configuration?.refreshSeconds);
  return step > 0 ? Math.max(5, step) : 60;
}

/** The picture of a map: the public one when it is published, else the token-only output. */
export function mapPicture(map, width, extra = {}) {
  const size = width ? `?width=${width}` : '';
  const priv = !map.public && signedIn();
  return h('map-picture', {
    src: priv ? `/api/v1/output/map/${map.mapId}/svg/${size}` : `/api/v1/public/output/map/${map.mapId}/svg/${size}`,
    auth: priv, alt: `Picture of the map ${map.name}`, refresh: refreshSeconds(map) || undefined, ...extra,
  });
}

export async function gallery() {
  const list = h('ul', { class: 'cards' });
  const intro = signedIn() ? 'Every map, newest change first. Open one for its versions, the pictures of its changes, publishing and embedding.'
    : 'The published maps. Sign in to see every map and to change them.';
  page('Maps', h('p', {}, intro), list);
  let maps;
  try {
    maps = await request(signedIn() ? '/api/v1/maps/?sort=-lastUpdatedOn' : '/api/v1/public/maps/');
  } catch (e) {
    return fail(e);
  }
  if (!maps.length) list.replaceWith(h('p', {}, signedIn() ? 'No maps yet: make one with "New map".' : 'No published maps yet.'));
  for (const map of maps) {
    if (!signedIn()) map.public = true; // the public list holds published maps only
    list.append(h('li', { class: 'card' },
      h('h2', {}, h('a', { href: `#/map/${map.mapId}` }, map.name)),
      mapPicture(map, 480),
      h('p', { class: 'meta' }, `Version ${map.version}${map.public ? ', published' : ', not published'} · ${when(map.lastUpdatedOn)}`,
        refreshSeconds(map) ? ' · live' : '')));
  }
}
