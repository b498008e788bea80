// The dataset output URL (docs/api.md: Dataset output) as a map layer's
// `mapjsonUrl` names it: which dataset, version, layout, datatype and
// template it asks for. Map output resolves layers by it (output/layers.ts),
// the picture reads a layer's layout from it (render/svg.ts), and the usage
// check finds the datasets a map draws (resources/usage.ts).
import { ID_PATTERN } from './common.ts';
import { VERSION_NUMBER } from './list.ts';
import { DATATYPE_MEANING, DATATYPES, LAYOUTS } from './map.ts';

export type Datatype = 'snapshot' | 'dynamic';

/** What a dataset output URL asks for. */
export interface DatasetOutputRef {
  datasetId: string;
  version: number | 'latest';
  layout: (typeof LAYOUTS)[number];
  datatype: Datatype;
  templateId: string | null;
}

const OUTPUT_URL = new RegExp(`/output/dataset/([A-Za-z0-9]{7})/(${LAYOUTS.join('|')})/(${DATATYPES.join('|')})(?:/(?:json|svg))?/?$`);

/**
 * Parses a dataset output URL, absolute or relative; null when it is not one,
 * `problem` when its `version` or `template` is one the output route itself
 * would refuse (an empty one counts as absent: editors that build the URL
 * write `?template=` for none). Only the path and query count: the host is
 * not compared with this service's, so maps moved from another instance
 * together with their datasets (same IDs), or saved through a proxy under
 * another name, still resolve.
 */
export function parseDatasetOutputUrl(url: string): DatasetOutputRef | { problem: string } | null {
  let u: URL;
  try {
    u = new URL(url, 'http://service.invalid/');
  } catch {
    return null;
  }
  const m = OUTPUT_URL.exec(u.pathname);
  if (!m) return null;
  const versions = u.searchParams.getAll('version').filter(Boolean);
  const templates = u.searchParams.getAll('template').filter(Boolean);
  const [v, t] = [versions[0], templates[0]];
  const shown = (values: string[]) => JSON.stringify(values.join('&').slice(0, 40));
  if (versions.length > 1 || (v !== undefined && v !== 'latest' && !VERSION_NUMBER.test(v))) {
    return { problem: `version ${shown(versions)} is not latest or a version number` };
  }
  if (templates.length > 1 || (t !== undefined && !ID_PATTERN.test(t))) {
    return { problem: `template ${shown(templates)} is not a template ID (7 letters or digits)` };
  }
  return {
    datasetId: m[1],
    layout: m[2] as DatasetOutputRef['layout'],
    datatype: DATATYPE_MEANING[m[3] as (typeof DATATYPES)[number]],
    version: v === undefined || v === 'latest' ? 'latest' : Number(v),
    templateId: t ?? null,
  };
}
