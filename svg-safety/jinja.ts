// The template text of the safe Jinja subset of node templates (docs/api.md:
// Node templates and Jinja): the text split into literal text, expressions to
// print and block tags (lex), each expression parsed by jinja-expression.ts.
// What is not understood is reported as a problem and written out as the
// text it is.
// ---------------------------------------------------------------- template text
import { dottedPath, parseExpression, type Expr } from './jinja-expression.ts';
import { JinjaError, UnsafeNameError } from './jinja-values.ts';

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

