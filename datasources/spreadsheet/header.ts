// Reads a header row into a plan: for every field, which cells fill it.
// Headers match without regard to case or surrounding spaces and are used in
// lower case. `source`/`destination` name the circuit ends; `source_<field>` and
// `destination_<field>` columns become fields of that circuit end; a header that
// appears more than once makes an array of the non-empty cells under it.
// Without a `source` or `destination` column, the names people already use
// for circuit ends stand in (END_ALIASES): `a_end`/`z_end`, `A-End`/`Z-End`,
// `from`/`to`, `a`/`z`, in any case and with any separator.

type Target = 'record' | 'source' | 'destination';

export interface FieldPlan {
  target: Target;
  /** Field name on the record or on the endpoint (lower case). */
  key: string;
  /** Cell indexes in the row; more than one makes an array. */
  indexes: number[];
}

export interface HeaderPlan {
  /** Cell index of the `source` / `destination` column, -1 when absent. */
  source: number;
  destination: number;
  /** Every other field, in header order. */
  fields: FieldPlan[];
  /** Header cells that were set aside, for the sheet's problems. */
  notes: string[];
}

/** Fields that must stay single values; a repeat is reported and ignored. */
const SINGLE: Record<Target, Set<string>> = {
  record: new Set(['id', 'name', 'latitude', 'longitude']),
  source: new Set(['latitude', 'longitude']),
  destination: new Set(['latitude', 'longitude']),
};
/** Record keys a column cannot take. */
const RESERVED = new Set(['endpoints']);

/**
 * Other spellings of the coordinate headers (matched after lower-casing), for
 * circuit-end fields: a lookup tab's columns and `source_*` / `destination_*`
 * row columns. A record's own columns keep their names (`long` there may be
 * anything).
 */
const COORDINATE_ALIASES: Record<string, string> = { lat: 'latitude', lon: 'longitude', lng: 'longitude', long: 'longitude' };
const endFieldKey = (key: string) => (Object.hasOwn(COORDINATE_ALIASES, key) ? COORDINATE_ALIASES[key] : key);

/** Circuit-end headers, squashed (lower case, no spaces, dashes or underscores), that stand in for source / destination. */
const END_ALIASES = { source: ['aend', 'from', 'a'], destination: ['zend', 'to', 'z'] } as const;

/** The circuit-end headers a sheet may use, for messages. */
export const ACCEPTED_END_HEADERS = 'source/destination, a_end/z_end, A-End/Z-End, from/to or a/z (any case and separator)';

const squash = (key: string) => key.replace(/[\s_-]+/g, '');

/** Takes an alias column as the circuit end `side` when the sheet has no column of that name. */
function takeAlias(plan: HeaderPlan, side: 'source' | 'destination'): void {
  if (plan[side] >= 0) return;
  for (const alias of END_ALIASES[side]) {
    const at = plan.fields.findIndex((f) => f.target === 'record' && f.indexes.length === 1 && squash(f.key) === alias);
    if (at < 0) continue;
    plan[side] = plan.fields[at].indexes[0];
    plan.fields.splice(at, 1);
    return;
  }
}

/**
 * `prefixed`: read `source_*`/`destination_*` as circuit-end fields (edge sheets);
 * otherwise every column is a circuit-end field (the Nodes lookup tab).
 */
export function planHeader(header: string[], prefixed = true): HeaderPlan {
  const byId = new Map<string, FieldPlan>();
  const plan: HeaderPlan = { source: -1, destination: -1, fields: [], notes: [] };
  header.forEach((cell, index) => {
    const text = cell.trim().toLowerCase();
    if (text === '') return;
    let target: Target = 'record';
    let key = text;
    const side = prefixed ? /^(source|destination)_(.+)$/.exec(text) : null;
    if (side && side[2] !== 'name') [target, key] = [side[1] as Target, endFieldKey(side[2])];
    else if (!prefixed) key = endFieldKey(key);
    if (target === 'record' && RESERVED.has(key)) {
      plan.notes.push(`column ${JSON.stringify(cell)} is ignored: "${key}" is reserved for the record's endpoints`);
      return;
    }
    const repeat = () => plan.notes.push(`column ${JSON.stringify(cell)} repeats "${key}"; only the first one is used`);
    if (prefixed && target === 'record' && (key === 'source' || key === 'destination')) {
      if (plan[key] >= 0) repeat();
      else plan[key] = index;
      return;
    }
    const id = `${target}\u0000${key}`;
    const known = byId.get(id);
    if (known && SINGLE[target].has(key)) repeat();
    else if (known) known.indexes.push(index);
    else {
      const field: FieldPlan = { target, key, indexes: [index] };
      byId.set(id, field);
      plan.fields.push(field);
    }
  });
  if (prefixed) {
    takeAlias(plan, 'source');
    takeAlias(plan, 'destination');
  }
  return plan;
}
