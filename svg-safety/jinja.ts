// The safe Jinja subset of node templates (docs/api.md: Node templates and Jinja).
// Templates written for Terranova use Jinja; this is a small interpreter of
// our own over the template text. It reads, never runs: there are no function
// calls, no loops, no assignments, no attribute access on anything but the
// node's own data (own keys of plain objects and arrays, never a prototype
// member), and every value it produces is bounded in length and in the work
// spent on it. What it does not understand is reported as a problem (422 at
// template save) and, in a template stored by other means, written out as the
// text it is.
//
// Supported:
//   {{ expr }}  {% if expr %} {% elif expr %} {% else %} {% endif %}  {# comment #}
//   whitespace control: {{- -}} {%- -%} {#- -#}
//   expr: name, endpoint_name, meta, meta.x, meta["x"], meta['x'], a[0],
//         string and number literals, true/false/none,
//         == != < > <= >=, in, not in, and, or, not, ~ (joins as text),
//         unary -, ( ), x if cond else y, is [not] defined|undefined|none|number|string,
//         filters (FILTERS below): upper lower title capitalize trim default/d
//         truncate replace round int float string e/escape length/count
//         first last join abs
// This module knows nothing of SVG: the caller (template.ts) escapes what
// comes out and passes it through the sanitizer.

export class JinjaError extends Error {}
/** A name or key that reads the object model (`__proto__`, `__class__`): refused, and read as nothing. */
class UnsafeNameError extends JinjaError {}

/** Jinja's Undefined: a name or key that is not there. Prints as nothing. */
export const UNDEFINED: unique symbol = Symbol('undefined');
export type Value = unknown;

/** Longest string one filter or `~` may produce; longer results are cut. */
export const MAX_VALUE_CHARS = 10_000;
/** Work one render may do in all: characters of derived strings (filters, `~`) plus STEP_COST a filter or join; then expressions give nothing. */
export const WORK_BUDGET = 100_000;
const STEP_COST = 20;
/** Deepest nesting of parentheses, `not`, unary minus and inline `if` in one expression. */
const MAX_EXPR_DEPTH = 32;

/** Keys never read, whatever the data holds: they name the JavaScript object model, not node data. */
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const DUNDER = /^__.*__$/;

// ---------------------------------------------------------------- expressions

export type Expr =
  | { k: 'lit'; v: Value }
  | { k: 'var'; name: string }
  /** base followed by `.name`, `.0` or `[expr]` lookups. */
  | { k: 'path'; base: Expr; keys: (Expr | string | number)[] }
  | { k: 'pipe'; base: Expr; steps: PipeStep[] }
  | { k: 'not'; a: Expr }
  | { k: 'neg'; a: Expr }
  | { k: 'and' | 'or'; items: Expr[] }
  | { k: 'cmp'; first: Expr; rest: [CmpOp, Expr][] }
  | { k: 'concat'; items: Expr[] }
  | { k: 'cond'; test: Expr; yes: Expr; else: Expr | null };

type CmpOp = '==' | '!=' | '<' | '>' | '<=' | '>=' | 'in' | 'not in';
type PipeStep =
  | { k: 'filter'; name: string; args: Expr[]; kwargs: [string, Expr][] }
  | { k: 'test'; name: string; negate: boolean };

interface Tok { t: 'name' | 'str' | 'num' | 'op'; v: string; n?: number; s?: string }

const OPS = ['==', '!=', '<=', '>=', '<', '>', '(', ')', '[', ']', '.', ',', '|', '~', '-', '+', '='];
const UNSUPPORTED_OPS = ['**', '//', '*', '/', '%', '{', '}', ':', ';', '!', '&', '^', '@', '$', '?', '#', '`', '\\'];

function tokenize(src: string): Tok[] {
  const toks: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (/\s/.test(c)) { i++; continue; }
    if (c === '"' || c === "'") {
      let s = '';
      let j = i + 1;
      for (; j < src.length && src[j] !== c; j++) {
        if (src[j] === '\\' && j + 1 < src.length) {
          const e = src[++j];
          s += e === 'n' ? '\n' : e === 't' ? '\t' : e === 'r' ? '\r' : e;
        } else s += src[j];
      }
      if (j >= src.length) throw new JinjaError(`a string is not closed (${c})`);
      toks.push({ t: 'str', v: src.slice(i, j + 1), s });
      i = j + 1;
      continue;
    }
    const num = /^(\d[\d_]*(\.\d[\d_]*)?([eE][-+]?\d+)?)/.exec(src.slice(i, i + 400));
    if (num) {
      toks.push({ t: 'num', v: num[1], n: Number(num[1].replace(/_/g, '')) });
      i += num[1].length;
      continue;
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i, i + 400));
    if (name) {
      toks.push({ t: 'name', v: name[0] });
      i += name[0].length;
      continue;
    }
    const bad = UNSUPPORTED_OPS.find((o) => src.startsWith(o, i));
    if (bad && !(bad === '!' && src[i + 1] === '=')) throw new JinjaError(`the operator \`${bad}\` is not supported`);
    const op = OPS.find((o) => src.startsWith(o, i));
    if (!op) throw new JinjaError(`unexpected character \`${c}\``);
    toks.push({ t: 'op', v: op });
    i += op.length;
  }
  return toks;
}

const TESTS = new Set(['defined', 'undefined', 'none', 'number', 'string']);
const KEYWORD_LITERALS = new Map<string, Value>([
  ['true', true], ['True', true], ['false', false], ['False', false], ['none', null], ['None', null],
]);

class Parser {
  private i = 0;
  private depth = 0;
  constructor(private readonly toks: Tok[]) {}

  private peek(o = 0): Tok | undefined { return this.toks[this.i + o]; }
  private isOp(v: string, o = 0) { const t = this.peek(o); return t?.t === 'op' && t.v === v; }
  private isName(v: string, o = 0) { const t = this.peek(o); return t?.t === 'name' && t.v === v; }
  private expectOp(v: string) {
    if (!this.isOp(v)) throw new JinjaError(`expected \`${v}\`${this.where()}`);
    this.i++;
  }
  private where(): string {
    const t = this.peek();
    return t ? ` before \`${t.v.slice(0, 40)}\`` : ' at the end';
  }
  private enter() {
    if (++this.depth > MAX_EXPR_DEPTH) throw new JinjaError(`the expression is nested more than ${MAX_EXPR_DEPTH} levels deep`);
  }

  parseAll(): Expr {
    if (this.toks.length === 0) throw new JinjaError('the expression is empty');
    const e = this.cond();
    if (this.i < this.toks.length) throw new JinjaError(`unexpected \`${this.peek()!.v.slice(0, 40)}\``);
    return e;
  }

  private cond(): Expr {
    this.enter();
    let e = this.or();
    if (this.isName('if')) {
      this.i++;
      const test = this.or();
      let otherwise: Expr | null = null;
      if (this.isName('else')) {
        this.i++;
        otherwise = this.cond();
      }
      e = { k: 'cond', test, yes: e, else: otherwise };
    }
    this.depth--;
    return e;
  }

  private or(): Expr {
    const items = [this.and()];
    while (this.isName('or')) { this.i++; items.push(this.and()); }
    return items.length === 1 ? items[0] : { k: 'or', items };
  }

  private and(): Expr {
    const items = [this.not()];
    while (this.isName('and')) { this.i++; items.push(this.not()); }
    return items.length === 1 ? items[0] : { k: 'and', items };
  }

  private not(): Expr {
    if (!this.isName('not')) return this.compare();
    this.i++;
    this.enter();
    const a = this.not();
    this.depth--;
    return { k: 'not', a };
  }

  private compare(): Expr {
    const first = this.concat();
    const rest: [CmpOp, Expr][] = [];
    for (;;) {
      const t = this.peek();
      if (t?.t === 'op' && ['==', '!=', '<', '>', '<=', '>='].includes(t.v)) {
        this.i++;
        rest.push([t.v as CmpOp, this.concat()]);
      } else if (this.isName('in')) {
        this.i++;
        rest.push(['in', this.concat()]);
      } else if (this.isName('not') && this.isName('in', 1)) {
        this.i += 2;
        rest.push(['not in', this.concat()]);
      } else break;
    }
    return rest.length === 0 ? first : { k: 'cmp', first, rest };
  }

  private concat(): Expr {
    const items = [this.unary(true)];
    while (this.isOp('~')) { this.i++; items.push(this.unary(true)); }
    return items.length === 1 ? items[0] : { k: 'concat', items };
  }

  private unary(withFilters: boolean): Expr {
    let e: Expr;
    if (this.isOp('-') || this.isOp('+')) {
      const minus = this.isOp('-');
      this.i++;
      this.enter();
      const a = this.unary(false);
      this.depth--;
      e = minus ? { k: 'neg', a } : a;
    } else e = this.postfix(this.primary());
    return withFilters ? this.pipe(e) : e;
  }

  private primary(): Expr {
    const t = this.peek();
    if (!t) throw new JinjaError('the expression ends too early');
    if (t.t === 'str') {
      this.i++;
      let s = t.s!;
      while (this.peek()?.t === 'str') s += this.toks[this.i++].s!; // "a" "b" is "ab", as in Jinja
      return { k: 'lit', v: s };
    }
    if (t.t === 'num') { this.i++; return { k: 'lit', v: t.n! }; }
    if (t.t === 'name') {
      this.i++;
      if (KEYWORD_LITERALS.has(t.v)) return { k: 'lit', v: KEYWORD_LITERALS.get(t.v) };
      if (['if', 'else', 'elif', 'endif', 'and', 'or', 'not', 'in', 'is'].includes(t.v)) throw new JinjaError(`unexpected \`${t.v}\``);
      return { k: 'var', name: t.v };
    }
    if (t.v === '(') {
      this.i++;
      this.enter();
      const e = this.cond();
      this.depth--;
      if (this.isOp(',')) throw new JinjaError('tuples are not supported');
      this.expectOp(')');
      return e;
    }
    if (t.v === '[') throw new JinjaError('list literals are not supported');
    throw new JinjaError(`unexpected \`${t.v}\``);
  }

  private postfix(base: Expr): Expr {
    const keys: (Expr | string | number)[] = [];
    for (;;) {
      if (this.isOp('.')) {
        this.i++;
        const t = this.peek();
        if (t?.t === 'name') keys.push(t.v);
        else if (t?.t === 'num' && /^\d+$/.test(t.v)) keys.push(t.n!);
        else throw new JinjaError(`expected a field name after \`.\`${this.where()}`);
        this.i++;
      } else if (this.isOp('[')) {
        this.i++;
        this.enter();
        if (this.isOp(']')) throw new JinjaError('`[]` needs a key');
        const key = this.cond();
        this.depth--;
        if (this.isOp(':')) throw new JinjaError('slices are not supported');
        this.expectOp(']');
        keys.push(key);
      } else if (this.isOp('(')) {
        throw new JinjaError(`calls such as \`${calleeText(base, keys)}(…)\` are not supported (filters take arguments: \`|truncate(10)\`)`);
      } else break;
    }
    return keys.length === 0 ? base : { k: 'path', base, keys };
  }

  private pipe(base: Expr): Expr {
    const steps: PipeStep[] = [];
    for (;;) {
      if (this.isOp('|')) {
        this.i++;
        const t = this.peek();
        if (t?.t !== 'name') throw new JinjaError(`expected a filter name after \`|\`${this.where()}`);
        this.i++;
        const spec = FILTERS.get(t.v);
        if (!spec) {
          throw new JinjaError(t.v === 'safe'
            ? 'the filter `safe` is not supported: node values are always written as escaped text, never as markup'
            : `the filter \`${t.v}\` is not supported (supported: ${[...FILTERS.keys()].join(', ')})`);
        }
        const args: Expr[] = [];
        const kwargs: [string, Expr][] = [];
        if (this.isOp('(')) {
          this.i++;
          this.enter();
          while (!this.isOp(')')) {
            if (this.peek()?.t === 'name' && this.isOp('=', 1)) {
              const key = this.peek()!.v;
              if (!spec.params.includes(key)) throw new JinjaError(`the filter \`${t.v}\` has no argument \`${key}\` (it takes ${spec.params.join(', ') || 'none'})`);
              this.i += 2;
              kwargs.push([key, this.cond()]);
            } else {
              if (kwargs.length) throw new JinjaError(`in \`${t.v}(…)\`, positional arguments come before named ones`);
              args.push(this.cond());
            }
            if (!this.isOp(',')) break;
            this.i++;
          }
          this.depth--;
          this.expectOp(')');
        }
        if (args.length > spec.params.length) {
          throw new JinjaError(`the filter \`${t.v}\` takes at most ${spec.params.length} argument${spec.params.length === 1 ? '' : 's'}`);
        }
        steps.push({ k: 'filter', name: t.v, args, kwargs });
      } else if (this.isName('is')) {
        this.i++;
        let negate = false;
        if (this.isName('not')) { this.i++; negate = true; }
        const t = this.peek();
        if (t?.t !== 'name' || !TESTS.has(t.v)) {
          throw new JinjaError(`the test \`is ${t?.v ?? ''}\` is not supported (supported: ${[...TESTS].join(', ')})`);
        }
        this.i++;
        steps.push({ k: 'test', name: t.v, negate });
      } else break;
    }
    return steps.length === 0 ? base : { k: 'pipe', base, steps };
  }
}

function calleeText(base: Expr, keys: (Expr | string | number)[]): string {
  const head = base.k === 'var' ? base.name : '…';
  return [head, ...keys.map((k) => (typeof k === 'object' ? '[…]' : String(k)))].join('.').slice(0, 60);
}

/** Parses one expression; throws JinjaError naming what is not supported. Keys such as `__class__` are refused. */
export function parseExpression(src: string): Expr {
  const e = new Parser(tokenize(src)).parseAll();
  checkKeys(e);
  return e;
}

/** Refuses literal keys that name the object model (`meta.__proto__`, `''.__class__`); at run time they read nothing anyway. */
function checkKeys(e: Expr): void {
  const stack: Expr[] = [e];
  while (stack.length) {
    const x = stack.pop()!;
    switch (x.k) {
      case 'path':
        stack.push(x.base);
        for (const key of x.keys) {
          const literal = typeof key === 'object' ? (key.k === 'lit' ? key.v : undefined) : key;
          if (typeof literal === 'string' && (UNSAFE_KEYS.has(literal) || DUNDER.test(literal))) {
            throw new UnsafeNameError(`\`${literal}\` is not a field that can be read`);
          }
          if (typeof key === 'object') stack.push(key);
        }
        break;
      case 'pipe':
        stack.push(x.base);
        for (const s of x.steps) if (s.k === 'filter') stack.push(...s.args, ...s.kwargs.map(([, v]) => v));
        break;
      case 'not': case 'neg': stack.push(x.a); break;
      case 'and': case 'or': case 'concat': stack.push(...x.items); break;
      case 'cmp': stack.push(x.first, ...x.rest.map(([, v]) => v)); break;
      case 'cond': stack.push(x.test, x.yes); if (x.else) stack.push(x.else); break;
      case 'var':
        if (UNSAFE_KEYS.has(x.name) || DUNDER.test(x.name)) throw new UnsafeNameError(`\`${x.name}\` is not a name that can be read`);
        break;
    }
  }
}

/** A plain dotted name (`meta.x.y`): the form of the original placeholders. */
function dottedPath(e: Expr): string | null {
  if (e.k === 'var') return e.name;
  if (e.k !== 'path' || e.base.k !== 'var') return null;
  const parts = [e.base.name];
  for (const key of e.keys) {
    if (typeof key === 'object') return null;
    parts.push(String(key));
  }
  return parts.join('.');
}

// ---------------------------------------------------------------- evaluation

/** What names mean for one node, and the work limit of one render. */
export interface Scope {
  variable(name: string): Value;
  budget: Budget;
}

export class LimitError extends Error {}

export class Budget {
  used = 0;
  /** Set once the work budget ran out during this render. */
  exhausted = false;
  /** Set once a string was cut at MAX_VALUE_CHARS. */
  capped = false;
  constructor(readonly limit = WORK_BUDGET) {}
  /** Counts `cost` against the budget; throws LimitError once it is spent. */
  spend(cost: number): void {
    this.used += cost;
    if (this.used > this.limit) {
      this.exhausted = true;
      throw new LimitError('work budget exhausted');
    }
  }
  /** Caps a derived string and counts its length against the budget. */
  take(s: string): string {
    if (s.length < MAX_VALUE_CHARS) {
      this.spend(s.length);
      return s;
    }
    this.capped = true; // (replace stops at the limit by itself)
    this.spend(MAX_VALUE_CHARS);
    return s.slice(0, MAX_VALUE_CHARS);
  }
}

const isObject = (v: Value): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** How a value prints: as the original placeholders printed it (lists joined with ", ", objects as nothing). */
export function display(v: Value): string {
  if (v == null || v === UNDEFINED) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return v.map(display).join(', ');
  return '';
}

export function truthy(v: Value): boolean {
  if (v == null || v === UNDEFINED || v === false || v === 0 || v === '') return false;
  if (typeof v === 'number') return !Number.isNaN(v);
  if (Array.isArray(v)) return v.length > 0;
  if (isObject(v)) return Object.keys(v).length > 0;
  return true;
}

/** One lookup: own keys of plain objects, indexes of arrays (negative from the end, as in Python); nothing else. */
function member(obj: Value, key: Value): Value {
  if (typeof key !== 'string' && typeof key !== 'number') return UNDEFINED;
  if (Array.isArray(obj)) {
    const n = typeof key === 'number' ? key : /^-?\d+$/.test(key) ? Number(key) : NaN;
    if (!Number.isInteger(n)) return UNDEFINED;
    const i = n < 0 ? obj.length + n : n;
    return i >= 0 && i < obj.length ? obj[i] : UNDEFINED;
  }
  if (!isObject(obj)) return UNDEFINED;
  const k = String(key);
  if (UNSAFE_KEYS.has(k) || !Object.hasOwn(obj, k)) return UNDEFINED;
  return obj[k];
}

const NUMERIC = /^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$/;
const toNumber = (v: Value): number | null =>
  typeof v === 'number' ? v : typeof v === 'boolean' ? Number(v) : typeof v === 'string' && NUMERIC.test(v) ? Number(v) : null;

/** A number and a numeric string compare as numbers (spreadsheet cells are text); otherwise like Python. */
function equal(a: Value, b: Value): boolean {
  if (a === b) return true;
  if (typeof a === 'number' && typeof b === 'string') return NUMERIC.test(b) && Number(b) === a;
  if (typeof b === 'number' && typeof a === 'string') return NUMERIC.test(a) && Number(a) === b;
  return false;
}

function order(a: Value, b: Value): number | null {
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a !== 'number' && typeof b !== 'number') return null;
  const x = toNumber(a), y = toNumber(b);
  if (x === null || y === null || Number.isNaN(x) || Number.isNaN(y)) return null;
  return x < y ? -1 : x > y ? 1 : 0;
}

function contains(container: Value, item: Value): boolean {
  if (typeof container === 'string') return (typeof item === 'string' || typeof item === 'number') && container.includes(String(item));
  if (Array.isArray(container)) return container.some((x) => equal(x, item));
  if (isObject(container)) return (typeof item === 'string' || typeof item === 'number') && !UNSAFE_KEYS.has(String(item)) && Object.hasOwn(container, String(item));
  return false;
}

function compare(op: CmpOp, a: Value, b: Value): boolean {
  switch (op) {
    case '==': return equal(a, b);
    case '!=': return !equal(a, b);
    case 'in': return contains(b, a);
    case 'not in': return !contains(b, a);
  }
  const o = order(a, b);
  if (o === null) return false;
  return op === '<' ? o < 0 : op === '>' ? o > 0 : op === '<=' ? o <= 0 : o >= 0;
}

/** Evaluates an expression; only LimitError escapes (the caller writes nothing for that expression). */
export function evaluate(e: Expr, scope: Scope): Value {
  switch (e.k) {
    case 'lit': return e.v;
    case 'var': return scope.variable(e.name);
    case 'path': {
      let v = evaluate(e.base, scope);
      for (const key of e.keys) {
        if (v === UNDEFINED) return UNDEFINED;
        v = member(v, typeof key === 'object' ? evaluate(key, scope) : key);
      }
      return v;
    }
    case 'pipe': {
      let v = evaluate(e.base, scope);
      for (const step of e.steps) {
        if (step.k === 'test') {
          v = runTest(step.name, v) !== step.negate;
          continue;
        }
        const spec = FILTERS.get(step.name)!;
        scope.budget.spend(STEP_COST);
        const args: Value[] = step.args.map((a) => evaluate(a, scope));
        for (const [name, a] of step.kwargs) args[spec.params.indexOf(name)] = evaluate(a, scope);
        v = spec.run(v, args, scope.budget);
      }
      return v;
    }
    case 'not': return !truthy(evaluate(e.a, scope));
    case 'neg': {
      const n = toNumber(evaluate(e.a, scope));
      return n === null ? UNDEFINED : -n;
    }
    case 'and': {
      let v: Value = true;
      for (const x of e.items) if (!truthy((v = evaluate(x, scope)))) return v;
      return v;
    }
    case 'or': {
      let v: Value = false;
      for (const x of e.items) if (truthy((v = evaluate(x, scope)))) return v;
      return v;
    }
    case 'cmp': {
      let left = evaluate(e.first, scope);
      for (const [op, x] of e.rest) {
        const right = evaluate(x, scope);
        if (!compare(op, left, right)) return false;
        left = right;
      }
      return true;
    }
    case 'concat': {
      let s = '';
      for (const x of e.items) {
        scope.budget.spend(STEP_COST);
        s = scope.budget.take(s + display(evaluate(x, scope)));
      }
      return s;
    }
    case 'cond':
      return truthy(evaluate(e.test, scope)) ? evaluate(e.yes, scope) : e.else ? evaluate(e.else, scope) : UNDEFINED;
  }
}

function runTest(name: string, v: Value): boolean {
  switch (name) {
    case 'defined': return v !== UNDEFINED;
    case 'undefined': return v === UNDEFINED;
    case 'none': return v === null;
    case 'number': return typeof v === 'number';
    case 'string': return typeof v === 'string';
  }
  return false;
}

// ---------------------------------------------------------------- filters

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

const FILTERS = new Map<string, FilterSpec>([
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

// ---------------------------------------------------------------- template text

/** A piece of template text: literal text, an expression to print, a block tag, or a construct written out as is. */
export type Piece =
  | { t: 'text'; s: string }
  | { t: 'out'; expr: Expr | null; legacy: string | null; src: string }
  | { t: 'tag'; tag: 'if' | 'elif' | 'else' | 'endif'; expr: Expr | null; src: string };

/** The original placeholder form, `{{ name }}` / `{{ meta.<any key> }}`: kept working exactly as before. */
const LEGACY = /^\s*([A-Za-z_][\w-]*(?:\.[^\s{}]+)?)\s*$/;
const BLOCK_TAGS = new Set(['if', 'elif', 'else', 'endif']);

/** Where the construct opened at `start` (`{{`, `{%`, `{#`) closes: the index of its closing delimiter, -1 if never. */
function findClose(text: string, start: number, close: string, strings: boolean): number {
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (strings && (c === '"' || c === "'")) {
      let j = i + 1;
      while (j < text.length && text[j] !== c) j += text[j] === '\\' ? 2 : 1;
      if (j >= text.length) return text.indexOf(close, start); // an open quote: Jinja fails; find the plain end
      i = j;
      continue;
    }
    if (text.startsWith(close, i)) return i;
  }
  return -1;
}

/**
 * Splits template text into pieces. Constructs that cannot be used are
 * reported to `problem` (with the construct) and become literal text.
 */
export function lex(text: string, problem: (message: string) => void): Piece[] {
  const pieces: Piece[] = [];
  let lit = '';
  let stripNext = false;
  const flushText = () => {
    if (lit) pieces.push({ t: 'text', s: lit });
    lit = '';
  };
  const literal = (s: string) => {
    const kept = stripNext ? s.trimStart() : s;
    if (kept !== '') stripNext = false;
    lit += kept;
  };
  // Delimiters found never to close: later ones of the same kind are not searched again (linear time).
  const unclosed = new Set<string>();
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf('{', i);
    if (open < 0 || open === text.length - 1) { literal(text.slice(i)); break; }
    const kind = text[open + 1];
    if (kind !== '{' && kind !== '%' && kind !== '#') {
      literal(text.slice(i, open + 1));
      i = open + 1;
      continue;
    }
    literal(text.slice(i, open));
    const close = kind === '{' ? '}}' : kind === '%' ? '%}' : '#}';
    const end = unclosed.has(close) ? -1 : findClose(text, open + 2, close, kind !== '#');
    if (end < 0) {
      unclosed.add(close);
      const what = kind === '{' ? '`{{` has no closing `}}`' : kind === '%' ? '`{%` has no closing `%}`' : '`{#` has no closing `#}`';
      problem(what);
      literal(text.slice(open, open + 2));
      i = open + 2;
      continue;
    }
    const src = text.slice(open, end + 2);
    let inner = text.slice(open + 2, end);
    const lstrip = inner.startsWith('-');
    if (lstrip || inner.startsWith('+')) inner = inner.slice(1);
    const rstrip = inner.endsWith('-');
    if (rstrip || inner.endsWith('+')) inner = inner.slice(0, -1);
    if (lstrip) lit = lit.trimEnd();
    i = end + 2;
    const piece = kind === '#' ? null : kind === '{' ? outputPiece(inner, src, problem) : tagPiece(inner, src, problem);
    if (piece) {
      flushText();
      pieces.push(piece);
    } else if (kind !== '#') {
      literal(src); // not understood: written out as it is
    }
    stripNext = rstrip;
  }
  flushText();
  return pieces;
}

function shown(src: string): string {
  return src.length > 60 ? `${src.slice(0, 57)}…` : src;
}

/** Characters that only Jinja gives a meaning: with them, the text is not an original placeholder. */
const JINJA_ONLY = /[|()[\]'"]/;

function outputPiece(inner: string, src: string, problem: (m: string) => void): Piece | null {
  let expr: Expr | null = null;
  let error: JinjaError | null = null;
  try {
    expr = parseExpression(inner);
  } catch (e) {
    if (!(e instanceof JinjaError)) throw e;
    error = e;
  }
  const m = LEGACY.exec(inner);
  const legacy = m && !JINJA_ONLY.test(m[1]) ? m[1] : null;
  // A plain dotted name keeps its original meaning (a key holding dots first, then nested keys);
  // so does any other original placeholder (`meta.a-b`), which is no Jinja.
  if (legacy !== null && (expr ? dottedPath(expr) !== null : true)) {
    if (error instanceof UnsafeNameError) problem(`${shown(src)}: ${error.message}`); // read as nothing when drawn
    return { t: 'out', expr: null, legacy, src };
  }
  if (expr) return { t: 'out', expr, legacy: null, src };
  problem(`${shown(src)}: ${error!.message}`);
  return null;
}

function tagPiece(inner: string, src: string, problem: (m: string) => void): Piece | null {
  const m = /^\s*([A-Za-z_]\w*)?/.exec(inner)!;
  const name = m[1];
  if (!name) {
    problem(`${shown(src)}: a tag needs a name (supported: {% if %}, {% elif %}, {% else %}, {% endif %})`);
    return null;
  }
  if (!BLOCK_TAGS.has(name)) {
    problem(`\`{% ${name} %}\` is not supported: node templates take {% if %}, {% elif %}, {% else %} and {% endif %} only (no loops, assignments, macros, includes or other tags)`);
    return null;
  }
  const rest = inner.slice(m[0].length);
  const tag = name as 'if' | 'elif' | 'else' | 'endif';
  if (tag === 'else' || tag === 'endif') {
    if (rest.trim() !== '') {
      problem(`${shown(src)}: {% ${tag} %} takes nothing after it`);
      return null;
    }
    return { t: 'tag', tag, expr: null, src };
  }
  try {
    return { t: 'tag', tag, expr: parseExpression(rest), src };
  } catch (e) {
    if (!(e instanceof JinjaError)) throw e;
    problem(`${shown(src)}: ${e.message}`);
    return null;
  }
}
