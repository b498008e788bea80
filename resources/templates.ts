// Node templates: versioned SVG fragments for node shapes. On first start
// (no templates at all) the two default templates are created.
import type { TemplateRevision } from '../schema/template.ts';
import { TEMPLATE_FIELDS } from '../schema/objects.ts';
import type { Store } from '../store/types.ts';
import { describeChange } from './changes.ts';
import { VersionedCollection, type Content } from './collection.ts';
import { defaultNodeTemplates } from './default-templates.ts';
import type { ListQuery, ResourceDescriptor, StoredVersion } from './types.ts';

export const TEMPLATE_DESCRIPTOR: ResourceDescriptor = {
  collection: 'templates',
  label: 'template',
  idField: 'templateId',
  fields: TEMPLATE_FIELDS,
  defaultFields: ['templateId', 'name', 'version', 'lastUpdatedBy', 'lastUpdatedOn'],
};

/** lastUpdatedBy of what the service creates by itself. */
const SYSTEM_USER = 'system';

export function createTemplates(store: Store, now: () => Date) {
  const collection = new VersionedCollection(store, TEMPLATE_DESCRIPTOR, now);
  const content = (r: TemplateRevision): Content => ({ name: r.name, template: r.template });

  return {
    collection,
    get: (id: string) => collection.get(id),
    at: (id: string, which: 'latest' | number = 'latest') => collection.at(id, which),
    serialized: (version: StoredVersion) => collection.serialized(version),
    list: (query: ListQuery) => collection.list(query),
    create: (by: string, revision: TemplateRevision) => collection.create(by, content(revision)),
    update: (id: string, by: string, revision: TemplateRevision, ifMatch?: string) =>
      collection.append(id, by, async (latest) => {
        const next = content(revision);
        return { content: next, change: await describeChange('templates', store, latest, next) };
      }, { ifMatch }),

    /** First start: with no templates at all, stores the defaults. Returns how many were created. */
    async ensureDefaults(): Promise<number> {
      if (store.heads('templates').length > 0) return 0;
      const defaults = defaultNodeTemplates();
      for (const revision of defaults) await collection.create(SYSTEM_USER, content(revision));
      return defaults.length;
    },
  };
}

export type Templates = ReturnType<typeof createTemplates>;
