// Template routes (docs/api.md: Templates). The markup must be well-formed XML
// within the safe Jinja subset (422 otherwise, see schema/template.ts). The
// create and update answers add `warnings` when the template renders but not
// as written (markup the sanitizer removes, the default marker standing in).
import { Hono } from 'hono';
import type { Auth } from '../auth/index.ts';
import type { AppEnv } from '../auth/types.ts';
import { TEMPLATE_DESCRIPTOR, type Templates } from '../resources/templates.ts';
import { TemplateRevisionSchema } from '../schema/template.ts';
import { templateWarnings } from '../svg-safety/template.ts';
import type { Serialized } from '../resources/types.ts';
import { readBody } from './body.ts';
import { parseListQuery, parseVersionQuery, type ListSpec } from './list-query.ts';
import { actingUser, ifMatch, pathId, sendList, sendVersion, sendSerialized } from './versioned.ts';

export const TEMPLATE_LIST: ListSpec = {
  resource: TEMPLATE_DESCRIPTOR,
  filters: { templateId: 'string', name: 'string', lastUpdatedBy: 'string' },
};

/** The stored object's answer with the template's `warnings` added, when there are any. */
async function withWarnings(view: Serialized | Promise<Serialized>, markup: string): Promise<Serialized> {
  const ready = await view;
  const warnings = templateWarnings(markup);
  if (warnings.length === 0) return ready;
  return { ...ready, body: `${ready.body.slice(0, -1)},"warnings":${JSON.stringify(warnings)}}` };
}

export function templateRoutes(o: { auth: Auth; templates: Templates; baseUrl: string }) {
  const { auth, templates } = o;
  const app = new Hono<AppEnv>({ strict: false });
  const id = (c: Parameters<typeof pathId>[0]) => pathId(c, 'templateId', 'template');

  app.get('/api/v1/templates', auth.guard('read', (c) =>
    sendList(c, templates.list(parseListQuery(c, TEMPLATE_LIST)))));

  app.get('/api/v1/template/id/:templateId', auth.guard('read', (c) => sendVersion(c, templates.collection, id(c), parseVersionQuery(c))));

  app.post('/api/v1/template', auth.requireScope('write'), async (c) => {
    const revision = await readBody(c, TemplateRevisionSchema);
    const created = await templates.create(actingUser(c), revision);
    return sendSerialized(c, withWarnings(templates.serialized(created), revision.template), 201, {
      Location: `${o.baseUrl}/api/v1/template/id/${created.templateId as string}/`,
    });
  });

  app.put('/api/v1/template/id/:templateId', auth.requireScope('write'), async (c) => {
    const templateId = id(c);
    templates.get(templateId);
    const revision = await readBody(c, TemplateRevisionSchema);
    return sendSerialized(c, withWarnings(templates.serialized(await templates.update(templateId, actingUser(c), revision, ifMatch(c))), revision.template));
  });

  return app;
}
