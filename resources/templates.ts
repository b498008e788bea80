// Node templates: versioned SVG fragments for node shapes. On first start
// (no templates at all) the two default templates are created.
import type { TemplateRevision } from '../schema/template.ts';
import { TEMPLATE_FIELDS } from '../schema/objects.ts';
import type { Store } from '../store/types.ts';
import { defaultNodeTemplates } from './default-templates.ts';
import type { StoredTemplate } from './types.ts';
import { describeResource, versionedResource } from './versioned-resource.ts';

export const TEMPLATE_DESCRIPTOR = describeResource('template', TEMPLATE_FIELDS);

/** lastUpdatedBy of what the service creates by itself. */
const SYSTEM_USER = 'system';

/** The private document whose creation decides which replica stores the defaults. */
const DEFAULTS_CLAIM = 'default-templates';

export function createTemplates(store: Store, now: () => Date) {
  const content = (r: TemplateRevision): TemplateRevision => ({ name: r.name, template: r.template });
  const templates = versionedResource<TemplateRevision, StoredTemplate>(store, now, {
    descriptor: TEMPLATE_DESCRIPTOR,
    created: content,
    updated: content,
  });

  return {
    ...templates,
    /** First start: with no templates at all, stores the defaults. Returns how many were created. */
    async ensureDefaults(): Promise<number> {
      if (store.heads('templates').length > 0) return 0;
      // Replicas starting together over one database (a shared store) each find
      // no templates yet: only the one whose write creates the claim makes them,
      // as with the signing key, so the defaults are not stored twice.
      if (store.counters && !(await claimFirst(store, now))) return 0;
      const defaults = defaultNodeTemplates();
      for (const revision of defaults) await templates.create(SYSTEM_USER, revision);
      return defaults.length;
    },
  };
}

/** Whether this call created the claim document (another replica had not). */
async function claimFirst(store: Store, now: () => Date): Promise<boolean> {
  let first = false;
  await store.update<{ createdOn: string }>('private', DEFAULTS_CLAIM, (current) => {
    first = current === undefined; // run again with the newer document when another replica wrote first
    return current ?? { createdOn: now().toISOString() };
  });
  return first;
}

export type Templates = ReturnType<typeof createTemplates>;
