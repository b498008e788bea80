// Evaluation of a parsed Jinja expression (svg-safety/jinja-expression.ts)
// for one node: names, lookups, comparisons, tests and filters, all within
// the render's work budget.
import type { Expr } from './jinja-expression.ts';
import { FILTERS } from './jinja-filters.ts';
import { compare, display, member, STEP_COST, toNumber, truthy, UNDEFINED, type Scope, type Value } from './jinja-values.ts';
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

