// The node templates created on first start: a geographic marker and a
// logical label.
// TODO(render): replace the bodies below with the constants exported by
// render/ once the render helper commits them, so the markup has one owner.
import type { TemplateRevision } from '../schema/template.ts';

export function defaultNodeTemplates(): TemplateRevision[] {
  return [
    {
      name: 'Geographic marker',
      template: '<g data-width="12" data-height="12"><circle cx="0" cy="0" r="6" fill="#1f77b4" stroke="#ffffff" stroke-width="1.5"/></g>',
    },
    {
      name: 'Logical label',
      template: '<g data-width="96" data-height="24"><rect x="-48" y="-12" width="96" height="24" rx="4" fill="#ffffff" stroke="#1f77b4"/><text x="0" y="4" text-anchor="middle" font-size="11">{{ name }}</text></g>',
    },
  ];
}
