// The filters of the safe Jinja subset: Jinja's own names and parameters,
// every string result bounded (MAX_VALUE_CHARS) and charged to the render's
// work budget.
// ---------------------------------------------------------------- filters
import { display, isObject, MAX_VALUE_CHARS, toNumber, truthy, UNDEFINED, type Budget, type Value } from './jinja-values.ts';

interface FilterSpec {
  params: string[];
  run(v: Value, args: Value[], budget: Budget): Value;
}

const str = (v: Value) => display(v);
const int = (v: Value, fallback: number): number => {
  const n = toNumber(v);
  return n === null || !Number.isFinite(n) ? fallback : Math.trunc(n);
};

/** Python's str.replace, stopping at MAX_VALUE_CHARS so that chains of replaces cannot grow without bound. */
function replaceCapped(s: string, old: string, neu: string, count: number): string {
  const out: string[] = [];
  let len = 0;
  const push = (x: string) => { out.push(x); len += x.length; };
  let n = 0;
  if (old === '') {
    for (const ch of s) {
      if (len >= MAX_VALUE_CHARS) break;
      if (count < 0 || n < count) { push(neu); n++; }
      push(ch);
    }
    if (len < MAX_VALUE_CHARS && (count < 0 || n < count)) push(neu);
  } else {
    let at = 0;
    while (len < MAX_VALUE_CHARS) {
      const found = count >= 0 && n >= count ? -1 : s.indexOf(old, at);
      if (found < 0) { push(s.slice(at)); break; }
      push(s.slice(at, found));
      push(neu);
      n++;
      at = found + old.length;
    }
  }
  const joined = out.join('');
  return joined.length > MAX_VALUE_CHARS ? joined.slice(0, MAX_VALUE_CHARS) : joined;
}

/** Jinja's truncate (leeway 5): cut at a word unless killwords, then add `end`. */
function truncate(s: string, length: number, killwords: boolean, end: string, leeway: number): string {
  if (s.length <= length + leeway) return s;
  if (length < end.length) return s.slice(0, Math.max(0, length));
  if (killwords) return s.slice(0, length - end.length) + end;
  const head = s.slice(0, length - end.length);
  const cut = head.lastIndexOf(' ');
  return (cut >= 0 ? head.slice(0, cut) : head) + end;
}

const WORD_START = /([-\s({[<]+)/;
const title = (s: string) => s.split(WORD_START).filter(Boolean).map((w) => w.charAt(0).toUpperCase() + w.slice(1).toLowerCase()).join('');

function roundTo(v: Value, precision: number, method: string): Value {
  const n = toNumber(v);
  if (n === null) return v;
  const p = Math.max(0, Math.min(15, precision));
  const f = 10 ** p;
  const r = method === 'ceil' ? Math.ceil(n * f) / f : method === 'floor' ? Math.floor(n * f) / f : Math.sign(n) * Math.round(Math.abs(n) * f) / f;
  return Object.is(r, -0) ? 0 : r;
}

function trimChars(s: string, chars: Value): string {
  if (chars == null || chars === UNDEFINED) return s.trim();
  const set = new Set(str(chars));
  let a = 0, b = s.length;
  while (a < b && set.has(s[a])) a++;
  while (b > a && set.has(s[b - 1])) b--;
  return s.slice(a, b);
}

const given = (v: Value) => v !== undefined && v !== UNDEFINED;

export const FILTERS = new Map<string, FilterSpec>([
  ['upper', { params: [], run: (v, _a, b) => b.take(str(v).toUpperCase()) }],
  ['lower', { params: [], run: (v, _a, b) => b.take(str(v).toLowerCase()) }],
  ['title', { params: [], run: (v, _a, b) => b.take(title(str(v))) }],
  ['capitalize', { params: [], run: (v, _a, b) => { const s = str(v); return b.take(s.charAt(0).toUpperCase() + s.slice(1).toLowerCase()); } }],
  ['trim', { params: ['chars'], run: (v, [chars], b) => b.take(trimChars(str(v), chars)) }],
  ['default', { params: ['default_value', 'boolean'], run: (v, [d, boolean]) => (v === UNDEFINED || v == null || (truthy(boolean) && !truthy(v)) ? (given(d) ? d : '') : v) }],
  ['truncate', {
    params: ['length', 'killwords', 'end', 'leeway'],
    run: (v, [length, killwords, end, leeway], b) =>
      b.take(truncate(str(v), int(given(length) ? length : 255, 255), truthy(killwords), given(end) ? str(end) : '...', Math.max(0, int(given(leeway) ? leeway : 5, 5)))),
  }],
  ['replace', {
    params: ['old', 'new', 'count'],
    run: (v, [old, neu, count], b) => b.take(replaceCapped(str(v), str(old), str(neu), given(count) && count !== null ? int(count, -1) : -1)),
  }],
  ['round', { params: ['precision', 'method'], run: (v, [precision, method]) => roundTo(v, int(given(precision) ? precision : 0, 0), given(method) ? str(method) : 'common') }],
  ['int', { params: ['default'], run: (v, [d]) => int(v, int(given(d) ? d : 0, 0)) }],
  ['float', { params: ['default'], run: (v, [d]) => { const n = toNumber(v); return n ?? (toNumber(given(d) ? d : 0) ?? 0); } }],
  ['abs', { params: [], run: (v) => { const n = toNumber(v); return n === null ? v : Math.abs(n); } }],
  ['string', { params: [], run: (v, _a, b) => b.take(str(v)) }],
  // Output is always XML-escaped once, where it is written: escaping here too would show "&amp;amp;".
  ['e', { params: [], run: (v, _a, b) => b.take(str(v)) }],
  ['escape', { params: [], run: (v, _a, b) => b.take(str(v)) }],
  ['length', { params: [], run: (v) => (typeof v === 'string' || Array.isArray(v) ? v.length : isObject(v) ? Object.keys(v).length : 0) }],
  ['count', { params: [], run: (v) => (typeof v === 'string' || Array.isArray(v) ? v.length : isObject(v) ? Object.keys(v).length : 0) }],
  ['first', { params: [], run: (v) => (Array.isArray(v) ? (v.length ? v[0] : UNDEFINED) : typeof v === 'string' ? ([...v.slice(0, 2)][0] ?? UNDEFINED) : UNDEFINED) }],
  ['last', { params: [], run: (v) => (Array.isArray(v) ? (v.length ? v[v.length - 1] : UNDEFINED) : typeof v === 'string' ? ([...v.slice(-2)].pop() ?? UNDEFINED) : UNDEFINED) }],
  ['join', { params: ['d'], run: (v, [d], b) => b.take(Array.isArray(v) ? v.map(display).join(given(d) ? str(d) : '') : str(v)) }],
]);
FILTERS.set('d', FILTERS.get('default')!);

