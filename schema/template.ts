// NewTemplate: the request body of template create and update. The markup is
// one node shape as an SVG fragment; it must be well-formed XML with no active
// content, and any Jinja in it must be within the safe subset (svg-safety/jinja.ts):
// 422 otherwise, naming the construct (`{% for %}`, an unknown filter, a call).
// The check is the one the renderer compiles with (svg-safety/template.ts checkTemplate), so what
// is accepted here is what renders.
import * as v from 'valibot';
import { revisionSchema } from './revision.ts';
import { checkTemplate } from '../svg-safety/template.ts';
import { NameSchema } from './common.ts';

const MAX_TEMPLATE_CHARS = 64 * 1024;

export const TemplateMarkupSchema = v.pipe(
  v.string('expected a string'),
  v.description('SVG markup of one node shape, for example a <g> holding a polygon; {{ name }}, {{ endpoint_name }} and {{ meta.<field> }} are filled in when rendered, as is a safe Jinja subset: meta["field"], filters (upper, lower, title, capitalize, trim, default/d, truncate, replace, round, int, float, string, e/escape, length/count, first, last, join, abs), ~, comparisons, and/or/not/in, x if c else y, is defined, {% if %}/{% elif %}/{% else %}/{% endif %} and {# comments #}; no loops, assignments, calls or includes'),
  v.minLength(1, 'must not be empty'),
  v.maxLength(MAX_TEMPLATE_CHARS, `must be at most ${MAX_TEMPLATE_CHARS} characters`),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const problem = checkTemplate(dataset.value);
    if (problem) addIssue({ message: problem });
  }),
);

// The template object as GET returned it is accepted (its ID and stamps ignored).
export const TemplateRevisionSchema = revisionSchema({
  name: NameSchema,
  template: TemplateMarkupSchema,
}, ['templateId'], { markup: 'the markup goes in template', svg: 'the markup goes in template' });

export type TemplateRevision = v.InferOutput<typeof TemplateRevisionSchema>;
