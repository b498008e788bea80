// Remembers node markup strings that the sanitizer itself produced (template
// output, sanitized fragments), so a picture does not re-parse thousands of
// node snippets. Membership is by content: a string equal to sanitizer
// output is exactly as safe, whoever hands it in. Anything else is sanitized.
import { sanitizeFragment } from './parse.ts';

const MAX = 100_000;
const known = new Set<string>();

export function markSafe(markup: string): string {
  if (known.size >= MAX) known.clear();
  known.add(markup);
  return markup;
}

/** Whether `markup` is known as sanitizer output here (a render thread is told which strings were). */
export const isMarkedSafe = (markup: unknown): markup is string => typeof markup === 'string' && known.has(markup);

/** `markup` itself when it is sanitizer output, otherwise its sanitized form. */
export function safeMarkup(markup: unknown): string {
  if (typeof markup !== 'string' || markup === '') return '';
  if (known.has(markup)) return markup;
  return markSafe(sanitizeFragment(markup));
}
