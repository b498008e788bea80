// The worst-case picture of bench/bounds.ts and bench/bounds-rss.ts: the demo
// map's layers drawn with a template that draws one rect 8,000 units wide,
// published, and the widths it is asked for.

const LARGE_SHAPE = '<g data-width="10" data-height="10"><rect x="-4000" y="-4000" width="8000" height="8000" fill="none"/></g>';

/** A request to the service: `app.request` in process, or fetch of a path at its origin. */
type Request = (path: string, init?: RequestInit) => Response | Promise<Response>;

/** The map `mapId` with its layers drawn with the large-shape template, live, published: its ID. */
export async function hostileMap(request: Request, headers: Record<string, string>, mapId: string) {
  const json = { 'content-type': 'application/json', ...headers };
  const tpl = await request('/api/v1/template/', { method: 'POST', headers: json, body: JSON.stringify({ name: 'large shape', template: LARGE_SHAPE }) });
  const { templateId } = (await tpl.json()) as { templateId: string };
  const map = (await (await request(`/api/v1/map/id/${mapId}/`, { headers })).json()) as { configuration: { layers: Record<string, unknown>[] } };
  const configuration = { ...map.configuration, layers: map.configuration.layers.map((l) => ({ ...l, datatype: 'dynamic', mapjsonUrl: null, templateId })) };
  const res = await request('/api/v1/map/', { method: 'POST', headers: json, body: JSON.stringify({ name: 'Hostile', configuration }) });
  const id = ((await res.json()) as { mapId: string }).mapId;
  await request(`/api/v1/map/id/${id}/publish/`, { method: 'POST', headers });
  return id;
}

/** 100 distinct widths, 200 to 1,487 px. */
export const widthsOf = () => Array.from({ length: 100 }, (_, i) => 200 + 13 * i);
