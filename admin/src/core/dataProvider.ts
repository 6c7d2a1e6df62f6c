import { HttpError, type DataProvider, type GetListParams, type Identifier } from 'react-admin';
import { metaOf } from './meta.js';
import type { JsonSchema } from './meta-types.js';
import { createProject, forgetProject } from './project.js';
import { api } from './http.js';

/** Suffixes a list filter key may carry to pick the operator: `created_at_gte` → `created_at >= …`. */
const OPS: [string, string][] = [
  ['_gte', '>='],
  ['_lte', '<='],
  ['_gt', '>'],
  ['_lt', '<'],
  ['_neq', '!='],
  ['_ilike', 'ilike'],
];

interface Leaf {
  field: string;
  op: string;
  value?: unknown;
}

/** react-admin's filter object → the API's filter JSON (`{"and": [leaves]}`); `q` goes apart. */
export function toFilter(filter: Record<string, unknown> = {}): { q?: string; filter?: string } {
  const { q, ...rest } = filter;
  const leaves: Leaf[] = [];
  for (const [key, value] of Object.entries(rest)) {
    if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0)) continue;
    const suffix = OPS.find(([s]) => key.endsWith(s));
    const field = suffix ? key.slice(0, -suffix[0].length) : key;
    if (value === null) leaves.push({ field, op: 'is_null' });
    else if (suffix) leaves.push({ field, op: suffix[1], value: suffix[1] === 'ilike' ? `%${String(value)}%` : value });
    else if (Array.isArray(value)) leaves.push({ field, op: 'in', value });
    else leaves.push({ field, op: '==', value });
  }
  return {
    ...(typeof q === 'string' && q.trim() ? { q: q.trim() } : {}),
    ...(leaves.length ? { filter: JSON.stringify({ and: leaves }) } : {}),
  };
}

const pathOf = (resource: string) => metaOf(resource)?.path ?? `/${resource}`;

function listQuery(params: Partial<GetListParams> & { extra?: Leaf[] }) {
  const search = new URLSearchParams();
  const { page = 1, perPage = 10 } = params.pagination ?? {};
  search.set('page', String(page));
  search.set('itemsPerPage', String(perPage));
  if (params.sort?.field) {
    search.set('sortBy', params.sort.field);
    search.set('descending', String(params.sort.order === 'DESC'));
  }
  const { q, filter } = toFilter(params.filter);
  if (q) search.set('q', q);
  const leaves = [...(filter ? (JSON.parse(filter) as { and: Leaf[] }).and : []), ...(params.extra ?? [])];
  if (leaves.length) search.set('filter', JSON.stringify({ and: leaves }));
  return search.toString();
}

function nullable(schema: JsonSchema | undefined) {
  if (!schema) return false;
  if (schema.anyOf) return schema.anyOf.some((s) => s.type === 'null');
  return Array.isArray(schema.type) && schema.type.includes('null');
}

/**
 * Keeps only what the body schema accepts (records carry read-only columns such as id, slug or
 * created_at, and the API rejects unknown fields). On update only the changed fields are sent.
 */
export function bodyFor(schema: JsonSchema | undefined, data: Record<string, unknown>, previous?: Record<string, unknown>) {
  const properties = schema?.properties;
  const body: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(data)) {
    if (properties && !(key in properties)) continue;
    if (previous && JSON.stringify(previous[key] ?? null) === JSON.stringify(raw ?? null)) continue;
    let value = raw;
    if (value === '' && nullable(properties?.[key])) value = null;
    // A blank optional field on create is left out so the server default applies.
    if (!previous && (value === null || value === undefined) && !schema?.required?.includes(key)) continue;
    body[key] = value === undefined ? null : value;
  }
  return body;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- react-admin types records per call site
type Page = { items: any[]; total: number };

/** What an action answers: the server's own words, when it has them. */
export interface ActionAnswer {
  message?: string;
}

export type ActionMethod = 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The record (or the collection, without `id`) an action or a view is about, and its sub-path. */
export interface RecordPath {
  id?: Identifier;
  /** Below the record: `join`, `event/5`, `costs`; none for the record itself. */
  path?: string;
}

/** A page of items of the API's list shape. */
export interface ItemsPage<T> {
  items: T[];
  total?: number;
}

/**
 * The CRUD methods plus custom ones (react-admin's way for what CRUD has no verb for): actions on a
 * record, and its read-only views. Screens call them through useDataProvider, their reads through
 * react-query's cache (see core/queries.ts).
 */
export interface FirewatchDataProvider extends DataProvider {
  /** `method` (POST by default) on `{resource}/{id}/{path}`; answers the server's message. */
  action<T = ActionAnswer | null>(resource: string, params: ActionParams): Promise<{ data: T }>;
  /** GET `{resource}/{id}/{path}?{query}`: a record's costs, messages, probable cause, a step's summary... */
  view<T>(resource: string, params: ViewParams): Promise<{ data: T }>;
}

/** `anonymous`: sent without the session (the public site); `globalErrors: false`: the caller shows its own refusal. */
interface CallOptions {
  anonymous?: boolean;
  globalErrors?: boolean;
}

type Query = { query?: Record<string, string | number> };
export type ActionParams = RecordPath & CallOptions & Query & { method?: ActionMethod; data?: unknown };
export type ViewParams = RecordPath & CallOptions & Query & { signal?: AbortSignal };

/** `{resource}/{id}/{path}?{query}`. */
const recordPath = (resource: string, { id, path, query }: RecordPath & Query) =>
  `${pathOf(resource)}${id === undefined ? '' : `/${encodeURIComponent(String(id))}`}${path ? `/${path}` : ''}` +
  (query ? `?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString()}` : '');

/** react-admin ↔ the Firewatch list/CRUD contract (page, itemsPerPage, sortBy, descending, q, filter). */
export const dataProvider: FirewatchDataProvider = {
  async action<T>(resource: string, { method = 'POST', data, anonymous, globalErrors, ...at }: ActionParams) {
    return { data: await api<T>(recordPath(resource, at), { method, json: data, anonymous, globalErrors }) };
  },
  async view<T>(resource: string, { signal, anonymous, globalErrors, ...at }: ViewParams) {
    return { data: await api<T>(recordPath(resource, at), { signal, anonymous, globalErrors }) };
  },
  async getList(resource, params) {
    const page = await api<Page>(`${pathOf(resource)}?${listQuery(params)}`, { signal: params.signal });
    return { data: page.items, total: page.total };
  },
  async getOne(resource, params) {
    const url = `${pathOf(resource)}/${encodeURIComponent(String(params.id))}`;
    if (metaOf(resource)?.routes.get !== false) return { data: await api<Page['items'][number]>(url, { signal: params.signal }) };
    // No generic GET: many such resources have a hand-made one (incidents, cases); a few have none
    // at all (cost models), and then the record comes from the list.
    try {
      return { data: await api<Page['items'][number]>(url, { signal: params.signal }) };
    } catch (error) {
      const detail = (error as { body?: { detail?: { msg: string }[] } }).body?.detail?.[0]?.msg ?? '';
      if ((error as { status?: number }).status !== 404 || !detail.startsWith('Nothing at')) throw error;
      const page = await api<Page>(
        `${pathOf(resource)}?${listQuery({ pagination: { page: 1, perPage: 1 }, extra: [{ field: 'id', op: '==', value: params.id }] })}`,
        { signal: params.signal },
      );
      if (!page.items[0]) throw new HttpError(`${metaOf(resource)?.label ?? 'Record'} '${String(params.id)}' could not be found.`, 404);
      return { data: page.items[0] };
    }
  },
  async getMany(resource, params) {
    const ids = [...new Set(params.ids)].filter((id) => id !== null && id !== undefined && id !== '');
    if (!ids.length) return { data: [] };
    const query = listQuery({ pagination: { page: 1, perPage: ids.length }, extra: [{ field: 'id', op: 'in', value: ids }] });
    const page = await api<Page>(`${pathOf(resource)}?${query}`, { signal: params.signal });
    return { data: page.items };
  },
  async getManyReference(resource, params) {
    const page = await api<Page>(`${pathOf(resource)}?${listQuery({ ...params, extra: [{ field: params.target, op: '==', value: params.id }] })}`, {
      signal: params.signal,
    });
    return { data: page.items, total: page.total };
  },
  async create(resource, params) {
    const body = bodyFor(metaOf(resource)?.create, params.data);
    if (resource === 'projects') return { data: await createProject(body) };
    return { data: await api<Page['items'][number]>(pathOf(resource), { method: 'POST', json: body }) };
  },
  async update(resource, params) {
    const body = bodyFor(metaOf(resource)?.update, params.data, params.previousData);
    // meta.version: the updated_at the form started from; a newer record answers 409 instead of being overwritten.
    const version = (params.meta as { version?: string } | undefined)?.version;
    const headers = version ? { 'If-Match': `"${version}"` } : undefined;
    return { data: await api<Page['items'][number]>(`${pathOf(resource)}/${encodeURIComponent(String(params.id))}`, { method: 'PUT', json: body, headers }) };
  },
  async updateMany(resource, params) {
    // The API has no bulk routes: one call per row, as the spec says.
    const body = bodyFor(metaOf(resource)?.update, params.data);
    const done: Identifier[] = [];
    for (const id of params.ids) {
      await api(`${pathOf(resource)}/${encodeURIComponent(String(id))}`, { method: 'PUT', json: body });
      done.push(id);
    }
    return { data: done };
  },
  async delete(resource, params) {
    await api(`${pathOf(resource)}/${encodeURIComponent(String(params.id))}`, { method: 'DELETE' });
    if (resource === 'projects') forgetProject(params.id);
    return { data: params.previousData ?? ({ id: params.id } as never) };
  },
  async deleteMany(resource, params) {
    const done: Identifier[] = [];
    for (const id of params.ids) {
      await api(`${pathOf(resource)}/${encodeURIComponent(String(id))}`, { method: 'DELETE' });
      if (resource === 'projects') forgetProject(id);
      done.push(id);
    }
    return { data: done };
  },
};
