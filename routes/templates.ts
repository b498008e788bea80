// The node template resource's routes (docs/api.md: Templates), declared for
// routes/resource-routes.ts. The markup must be well-formed XML within the
// safe Jinja subset (422 otherwise, see schema/template.ts). The create and
// update answers add `warnings` when the template renders but not as written
// (markup the sanitizer removes, the default marker standing in). Deleting a
// template a live map still uses is 409.
import * as v from 'valibot';
import { TEMPLATE_DESCRIPTOR } from '../resources/templates.ts';
import { TemplateSchema } from '../schema/objects.ts';
import { TemplateRevisionSchema, type TemplateRevision } from '../schema/template.ts';
import { templateWarnings } from '../svg-safety/template.ts';
import { resourceRoutes } from './resource-routes.ts';

export const TEMPLATE_ROUTES = resourceRoutes<TemplateRevision>({
  segment: 'template',
  paths: {
    list: '/api/v1/templates/', create: '/api/v1/template/', object: '/api/v1/template/id/{templateId}/',
    history: '/api/v1/template/id/{templateId}/history/', diff: '/api/v1/template/id/{templateId}/diff/',
    restore: '/api/v1/template/id/{templateId}/restore/', revert: '/api/v1/template/id/{templateId}/revert/',
  },
  descriptor: TEMPLATE_DESCRIPTOR,
  // NewTemplate: Terranova's name for the body.
  revision: { name: 'NewTemplate', schema: TemplateRevisionSchema },
  object: TemplateSchema,
  resource: (deps) => deps.templates,
  noun: 'node template',
  warnings: (revision) => templateWarnings(revision.template),
  history: { usedBy: 'template' },
}, v.partial(TemplateSchema));
