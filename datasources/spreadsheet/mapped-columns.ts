// A dataset query's own names for a sheet's columns (`query.columns`:
// `{source: "Site A", destination: "Site B", …}`): the tab is read again with
// those headers renamed to the fields they stand for, so a sheet whose
// circuit-end headers are none of the accepted ones still works without
// editing it. Built once per file version and mapping (kept beside the
// parsed file), from the tab as it was read.
import { validationFailed } from '../../errors.ts';
import type { Loaded } from './catalog.ts';
import { findLookupTab, readNodes } from './nodes.ts';
import { cellAt, headerIndex, type RawTab } from './raw.ts';
import { buildEdgeTab, type EdgeTab } from './records.ts';

const built = new WeakMap<Loaded, Map<string, Promise<EdgeTab>>>();

/** The tab with each mapped header renamed to its field; 422 naming the headers there when one is missing. */
function renamed(tab: RawTab, columns: Readonly<Record<string, string>>, label: string): RawTab {
  const at = headerIndex(tab);
  const header = at < 0 ? [] : tab.rows[at];
  const texts = header.map((_, i) => cellAt(header, i).toLowerCase());
  const next = [...header];
  for (const [field, name] of Object.entries(columns)) {
    const index = texts.indexOf(name.trim().toLowerCase());
    if (index < 0) {
      throw validationFailed(`query.columns.${field}: no column ${JSON.stringify(name)} in sheet ${JSON.stringify(tab.name)} of ${label}; ` +
        `its headers: ${texts.filter(Boolean).join(', ')}`, [{ path: `query.columns.${field}`, message: `no column ${JSON.stringify(name)}` }]);
    }
    // The field's own header, if the sheet also has one, gives way to the mapped column.
    texts.forEach((text, i) => { if (text === field.toLowerCase() && i !== index) next[i] = ''; });
    next[index] = field;
  }
  return { ...tab, rows: tab.rows.map((row, i) => (i === at ? next : row)) };
}

/** The edge sheet `name` of a loaded file, read with `columns`; 422 when there is no such tab or column. */
export function mappedTab(loaded: Loaded, name: string, columns: Readonly<Record<string, string>>): Promise<EdgeTab> {
  const raw = loaded.raw ?? [];
  const tab = raw.find((t) => t.name === name);
  if (!tab) throw validationFailed(`${loaded.file.fileName} has no tab ${JSON.stringify(name)}; its tabs: ${raw.map((t) => JSON.stringify(t.name)).join(', ')}`);
  let mine = built.get(loaded);
  if (!mine) built.set(loaded, (mine = new Map()));
  const key = `${name}\u0000${JSON.stringify(Object.entries(columns).sort())}`;
  let edges = mine.get(key);
  if (!edges) {
    const map = renamed(tab, columns, loaded.file.fileName);
    edges = (async () => {
      const lookup = raw.length > 1 ? findLookupTab(raw) : undefined;
      const sheet = await buildEdgeTab(map, lookup && lookup !== tab ? await readNodes(lookup) : null);
      if (!sheet) throw validationFailed(`${loaded.file.fileName}: sheet ${JSON.stringify(name)} has no source and destination columns, even with query.columns`);
      if (sheet.error) throw validationFailed(`${loaded.file.fileName}: ${sheet.error}`);
      return sheet;
    })();
    mine.set(key, edges);
    edges.catch(() => mine.delete(key));
  }
  return edges;
}
