import type { ComponentType } from 'react';

/** The screens of one resource: the generic ones unless a resource overrides them. */
export interface Screens {
  list: ComponentType;
  create: ComponentType;
  edit: ComponentType;
  /** Menu label when it differs from the plural of the server label. */
  menuLabel?: string;
}
