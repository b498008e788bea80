// The values of the safe Jinja subset (svg-safety/jinja-expression.ts): how
// they print, test true, compare and are looked up, and the work budget of
// one render.
import type { CmpOp } from './jinja-expression.ts';

export class JinjaError extends Error {}
/** A name or key that reads the object model (`__proto__`, `__class__`): refused, and read as nothing. */
export class UnsafeNameError extends JinjaError {}

/** Jinja's Undefined: a name or key that is not there. Prints as nothing. */
export const UNDEFINED: unique symbol = Symbol('undefined');
export type Value = unknown;

/** Longest string one filter or `~` may produce; longer results are cut. */
export const MAX_VALUE_CHARS = 10_000;
/** Work one render may do in all: characters of derived strings (filters, `~`) plus STEP_COST a filter or join; then expressions give nothing. */
export const WORK_BUDGET = 100_000;
export const STEP_COST = 20;
/** Deepest nesting of parentheses, `not`, unary minus and inline `if` in one expression. */
export const MAX_EXPR_DEPTH = 32;

/** Keys never read, whatever the data holds: they name the JavaScript object model, not node data. */
export const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
export const DUNDER = /^__.*__$/;

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

export const isObject = (v: Value): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

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
export function member(obj: Value, key: Value): Value {
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
export const toNumber = (v: Value): number | null =>
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

export function compare(op: CmpOp, a: Value, b: Value): boolean {
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
