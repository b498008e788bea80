// NewTemplate: the request body of template create and update. The markup is
// one node shape as an SVG fragment and must be well-formed XML (422
// otherwise); sanitizing happens when it is rendered.
import { DOMParser } from '@xmldom/xmldom';
import * as v from 'valibot';
import { NameSchema } from './common.ts';

export const MAX_TEMPLATE_CHARS = 64 * 1024;

/** Why the markup is not a well-formed XML fragment with one root element, or null when it is. */
export function xmlProblem(markup: string): string | null {
  if (/<!DOCTYPE|<!ENTITY/i.test(markup)) return 'DOCTYPE and entity declarations are not allowed';
  const problems: string[] = [];
  try {
    new DOMParser({ onError: (level, message) => { if (level !== 'warning') problems.push(message); } })
      .parseFromString(markup, 'image/svg+xml');
  } catch (e) {
    problems.push((e as Error).message);
  }
  if (!problems.length) return null;
  // xmldom messages can span lines and quote the input; keep the first line, bounded.
  return problems[0].split('\n')[0].slice(0, 200);
}

export const TemplateMarkupSchema = v.pipe(
  v.string('expected a string'),
  v.description('SVG markup of one node shape, for example a <g> holding a polygon; {{ name }} and {{ meta.<field> }} are filled in when rendered'),
  v.minLength(1, 'must not be empty'),
  v.maxLength(MAX_TEMPLATE_CHARS, `must be at most ${MAX_TEMPLATE_CHARS} characters`),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const problem = xmlProblem(dataset.value);
    if (problem) addIssue({ message: `must be well-formed XML with one root element: ${problem}` });
  }),
);

// Unknown keys (templateId, version, ... of a full template sent back) are dropped, not stored.
export const TemplateRevisionSchema = v.object({
  name: NameSchema,
  template: TemplateMarkupSchema,
});

export type TemplateRevision = v.InferOutput<typeof TemplateRevisionSchema>;
