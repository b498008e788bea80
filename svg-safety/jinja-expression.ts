// The safe Jinja subset of node templates (docs/api.md: Node templates and Jinja):
// its expressions, lexed and parsed (jinja.ts is the template text, jinja-eval.ts
// the evaluation, jinja-values.ts the values, jinja-filters.ts the filters).
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
//         filters (jinja-filters.ts): upper lower title capitalize trim default/d
//         truncate replace round int float string e/escape length/count
//         first last join abs
// This module knows nothing of SVG: the caller (template.ts) escapes what
// comes out and passes it through the sanitizer.
import { FILTERS } from './jinja-filters.ts';
import { DUNDER, JinjaError, MAX_EXPR_DEPTH, UNSAFE_KEYS, UnsafeNameError, type Value } from './jinja-values.ts';

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

export type CmpOp = '==' | '!=' | '<' | '>' | '<=' | '>=' | 'in' | 'not in';
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
export function dottedPath(e: Expr): string | null {
  if (e.k === 'var') return e.name;
  if (e.k !== 'path' || e.base.k !== 'var') return null;
  const parts = [e.base.name];
  for (const key of e.keys) {
    if (typeof key === 'object') return null;
    parts.push(String(key));
  }
  return parts.join('.');
}

