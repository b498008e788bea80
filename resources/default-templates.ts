// The node templates created on first start: a geographic marker and a
// logical label. Their markup is owned by svg-safety/template.ts.
import { DEFAULT_TEMPLATES } from '../svg-safety/template.ts';
import type { TemplateRevision } from '../schema/template.ts';

export function defaultNodeTemplates(): TemplateRevision[] {
  return [DEFAULT_TEMPLATES.geographic, DEFAULT_TEMPLATES.logical].map(({ name, template }) => ({ name, template }));
}
