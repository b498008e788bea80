// The node templates created on first start: a geographic marker and a
// logical label. Their markup is owned by the renderer (render/template.ts).
import { DEFAULT_TEMPLATES } from '../render/template.ts';
import type { TemplateRevision } from '../schema/template.ts';

export function defaultNodeTemplates(): TemplateRevision[] {
  return [DEFAULT_TEMPLATES.geographic, DEFAULT_TEMPLATES.logical].map(({ name, template }) => ({ name, template }));
}
