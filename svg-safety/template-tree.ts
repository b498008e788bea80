// A node template's text as a tree: the stream the sanitizer's walk writes
// (literal markup, Jinja holes and block tags, attributes holding Jinja),
// checked for balanced blocks and built into the tree compileTemplate
// (template.ts) fills per node.
import { escapeText } from './sanitize.ts';
import { lex, type Piece } from './jinja.ts';
import type { Expr } from './jinja-expression.ts';

/** `{% if %}` blocks nest at most this deep. */
const MAX_BLOCK_DEPTH = 16;

type Tag = 'if' | 'elif' | 'else' | 'endif';
export type Item =
  | { k: 'markup'; s: string }
  /** An element's children begin / end: a block must close within one such list. */
  | { k: 'open' }
  | { k: 'close' }
  | { k: 'text'; s: string }
  | { k: 'out'; expr: Expr | null; legacy: string | null }
  | { k: 'attr'; el: string; name: string; body: TNode[] }
  | { k: 'tag'; tag: Tag; expr: Expr | null; src: string };

export interface IfNode { k: 'if'; branches: { cond: Expr; body: TNode[] }[]; otherwise: TNode[] | null }
/** Strings are markup (escaped) in element content, plain text in an attribute's body. */
export type TNode = string | { k: 'out'; expr: Expr | null; legacy: string | null } | { k: 'attr'; el: string; name: string; body: TNode[] } | IfNode;

export const JINJA = /\{[{%#]/;
const shown = (src: string) => (src.length > 60 ? `${src.slice(0, 57)}…` : src);

export function pieceItem(p: Piece): Item {
  if (p.t === 'text') return { k: 'text', s: p.s };
  if (p.t === 'out') return { k: 'out', expr: p.expr, legacy: p.legacy };
  return { k: 'tag', tag: p.tag, expr: p.expr, src: p.src };
}

/**
 * Checks that every block opens and closes within one list of siblings and
 * nests at most MAX_BLOCK_DEPTH deep; a tag that does not is reported and
 * becomes the text it is (with the rest of its block), so what remains always
 * builds a tree whose branches are well-formed markup.
 */
export function balance(items: Item[], problem: (m: string) => void): void {
  interface Open { parts: number[]; demoted: boolean; sawElse: boolean; src: string }
  const lists: Open[][] = [[]];
  let depth = 0;
  const demote = (i: number) => {
    const it = items[i];
    if (it.k === 'tag') items[i] = { k: 'text', s: it.src };
  };
  const closeList = () => {
    for (const o of lists.pop()!) {
      if (!o.demoted) {
        problem(`${shown(o.src)} is not closed by {% endif %} within the same element`);
        depth--;
      }
      o.parts.forEach(demote);
    }
  };
  for (let i = 0; i < items.length; i++) {
    const it = items[i];
    if (it.k === 'open') lists.push([]);
    else if (it.k === 'close') closeList();
    if (it.k !== 'tag') continue;
    const list = lists[lists.length - 1];
    const top = list[list.length - 1];
    if (it.tag === 'if') {
      const demoted = depth >= MAX_BLOCK_DEPTH;
      if (demoted) problem(`{% if %} blocks nest more than ${MAX_BLOCK_DEPTH} deep (at ${shown(it.src)})`);
      else depth++;
      list.push({ parts: [i], demoted, sawElse: false, src: it.src });
      if (demoted) demote(i);
    } else if (!top) {
      problem(`${shown(it.src)} has no {% if %} before it in the same element`);
      demote(i);
    } else if (it.tag === 'endif') {
      list.pop();
      if (top.demoted) demote(i);
      else depth--;
    } else if (top.demoted) demote(i);
    else if (top.sawElse) {
      problem(`${shown(it.src)} comes after {% else %}`);
      demote(i);
    } else {
      top.parts.push(i);
      if (it.tag === 'else') top.sawElse = true;
    }
  }
  while (lists.length) closeList();
}

export function buildTree(items: Item[], escapeValues: boolean): TNode[] {
  const root: TNode[] = [];
  const stack: { node: IfNode; outer: TNode[] }[] = [];
  let body = root;
  const push = (n: TNode) => {
    if (n === '') return;
    if (typeof n === 'string' && typeof body[body.length - 1] === 'string') body[body.length - 1] += n;
    else body.push(n);
  };
  for (const it of items) {
    switch (it.k) {
      case 'markup': push(it.s); break;
      case 'text': push(escapeValues ? escapeText(it.s) : it.s); break;
      case 'out': push({ k: 'out', expr: it.expr, legacy: it.legacy }); break;
      case 'attr': push({ k: 'attr', el: it.el, name: it.name, body: it.body }); break;
      case 'tag': {
        if (it.tag === 'if') {
          const node: IfNode = { k: 'if', branches: [{ cond: it.expr!, body: [] }], otherwise: null };
          push(node);
          stack.push({ node, outer: body });
          body = node.branches[0].body;
        } else {
          const top = stack[stack.length - 1]; // balance() guarantees one
          if (it.tag === 'elif') top.node.branches.push({ cond: it.expr!, body: (body = []) });
          else if (it.tag === 'else') top.node.otherwise = body = [];
          else body = stack.pop()!.outer;
        }
        break;
      }
    }
  }
  return root;
}

/** A template text (attribute value) as a tree of its own; its blocks must close within it. */
export function textTree(text: string, problem: (m: string) => void): TNode[] {
  const items = lex(text, problem).map(pieceItem);
  balance(items, problem);
  return buildTree(items, false);
}

