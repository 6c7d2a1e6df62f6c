import type { DescribedField } from '../../../server/engine/field-meta.js';

/** One entry of GET /meta/resources: everything a generic screen needs (see server/engine/meta.ts). */
export interface JsonSchema {
  type?: string | string[];
  anyOf?: JsonSchema[];
  enum?: unknown[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  default?: unknown;
}

/** One field as the server describes it (server/engine/field-meta.ts): label, input kind, list column, reference. */
export type FieldMeta = DescribedField;

export interface ResourceMeta {
  name: string;
  path: string;
  model: string;
  label: string;
  labelPlural: string;
  /** The field that names a record. */
  recordRepresentation: string;
  fields: FieldMeta[];
  pageSize: number;
  sort: [string, 'asc' | 'desc'][];
  search: string[];
  filterFields: string[];
  columns: { name: string; type: string; nullable: boolean }[];
  references: Record<string, string>;
  immutable: string[];
  writeRole: 'Owner' | 'Manager' | 'Admin' | 'Member';
  /** Least role that may list and read (API keys: Admin); below it the screens are left out. */
  readRole?: 'Owner' | 'Manager' | 'Admin' | 'Member';
  /** Least role that may update (an organization: Admin, though any member may create one). */
  updateRole?: 'Owner' | 'Manager' | 'Admin' | 'Member';
  routes: Record<'list' | 'get' | 'create' | 'update' | 'delete', boolean>;
  create: JsonSchema;
  update: JsonSchema;
  /** A filter every list request carries (client-side aliases such as runbooks, see catalog/documents.ts). */
  permanentFilter?: Record<string, unknown>;
}
