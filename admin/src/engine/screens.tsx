import { useEffect, useMemo, type ReactElement, type ReactNode } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { ThemeProvider, type Theme } from '@mui/material/styles';
import {
  AutocompleteInput,
  BooleanField,
  BulkDeleteButton,
  Create,
  CreateButton,
  Datagrid,
  DeleteButton,
  Edit,
  FunctionField,
  List,
  NullableBooleanInput,
  Pagination,
  NumberField,
  ReferenceField,
  ReferenceInput,
  SaveButton,
  SearchInput,
  SelectInput,
  SimpleForm,
  TextField,
  Toolbar,
  TopToolbar,
  useCreatePath,
  useDataProvider,
  useNotify,
  usePermissions,
  useRecordContext,
  useRedirect,
  useResourceContext,
  type CreateProps,
  type EditProps,
} from 'react-admin';
import { fieldSpecs, labelOf, metaOf, representation, type FieldSpec } from '../core/meta.js';
import type { ResourceMeta } from '../core/meta-types.js';
import { RecordActions, type RecordAction } from './actions.js';
import { mayWrite } from '../core/rights.js';
import { FieldInput } from './inputs.js';

/** Spec §9: timestamps read as YYYY-MM-DD HH:mm:ss UTC. */
export const utc = (value: unknown) => {
  if (value === null || value === undefined || value === '') return '';
  const date = new Date(String(value));
  return Number.isNaN(date.getTime()) ? String(value) : `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
};

/** "Tag type" → "tag type", but "IAO" and "API Key" keep their capitals. */
const lowerFirst = (label: string) => (/^[A-Z][a-z]/.test(label) ? label.charAt(0).toLowerCase() + label.slice(1) : label);

/** May the signed-in user change this resource (the definition's writeRole, or its updateRole for an edit)? */
export function useCanWrite(meta: ResourceMeta, action: 'write' | 'update' = 'write') {
  const { permissions } = usePermissions<string>();
  return mayWrite(permissions, meta, action);
}

export function useMeta(): ResourceMeta {
  const resource = useResourceContext()!;
  const meta = metaOf(resource);
  if (!meta) throw new Error(`No metadata for resource '${resource}'.`);
  return meta;
}

/** Fields the screens of one resource leave out or lock (see overrides.tsx). */
export interface FormTweaks {
  omit?: string[];
  /** Fields shown but locked, e.g. plan-gated settings. */
  locked?: string[];
}

/** The columns a list shows: the fields the server marks as list columns. */
function listColumns(meta: ResourceMeta) {
  return meta.fields.filter((f) => f.list).map((f) => ({ name: f.name, type: meta.columns.find((c) => c.name === f.name)?.type ?? 'string' }));
}

function column(meta: ResourceMeta, col: { name: string; type: string }): ReactElement {
  const field = meta.fields.find((f) => f.name === col.name);
  const label = labelOf(meta, col.name);
  const sortable = meta.filterFields.includes(col.name);
  const reference = field?.kind === 'reference' ? field.resource : undefined;
  // The target's recordRepresentation (set on its Resource) names the record.
  if (reference) return <ReferenceField key={col.name} source={col.name} reference={reference} label={label} sortable={sortable} link={false} />;
  if (field?.kind === 'color')
    return (
      <FunctionField
        key={col.name}
        source={col.name}
        label={label}
        sortable={sortable}
        render={(r) =>
          r[col.name] ? (
            <span style={{ display: 'inline-flex', alignItems: 'center', gap: 6 }}>
              <span style={{ width: 14, height: 14, borderRadius: 3, background: r[col.name] }} />
              {r[col.name]}
            </span>
          ) : (
            ''
          )
        }
      />
    );
  if (field?.kind === 'enums' || (field?.kind === 'enum' && field.choices?.some((c) => c.id !== c.name))) {
    // The server's words for its values (a document's type "Incident review template", not dispatch-…) ("Incident created", not incident.created).
    const word = (v: unknown) => field.choices?.find((c) => c.id === v)?.name ?? String(v);
    return (
      <FunctionField
        key={col.name}
        source={col.name}
        label={label}
        sortable={sortable}
        render={(r) =>
          [r[col.name]]
            .flat()
            .filter((v) => v != null)
            .map(word)
            .join(', ')
        }
      />
    );
  }
  if (col.type === 'boolean') return <BooleanField key={col.name} source={col.name} label={label} sortable={sortable} />;
  if (col.type === 'date') return <FunctionField key={col.name} source={col.name} label={label} sortable={sortable} render={(r) => utc(r[col.name])} />;
  // Spec §9: numbers in en-US with up to 6 significant digits, whatever the browser's language.
  if (col.type === 'number')
    return <NumberField key={col.name} source={col.name} label={label} sortable={sortable} locales="en-US" options={{ maximumSignificantDigits: 6 }} />;
  if (col.name === 'description')
    return (
      <FunctionField
        key={col.name}
        source={col.name}
        label={label}
        sortable={sortable}
        render={(r) => (r.description?.length > 80 ? `${r.description.slice(0, 80)}…` : r.description)}
      />
    );
  return <TextField key={col.name} source={col.name} label={label} sortable={sortable} />;
}

function listFilters(meta: ResourceMeta): ReactElement[] {
  const filters: ReactElement[] = [];
  if (meta.search.length) filters.push(<SearchInput key="q" source="q" alwaysOn placeholder="Search" />);
  for (const field of meta.filterFields) {
    const spec = meta.fields.find((s) => s.name === field);
    const col = meta.columns.find((c) => c.name === field);
    const label = labelOf(meta, field);
    if (spec?.kind === 'reference' && spec.resource)
      filters.push(
        <ReferenceInput key={field} source={field} reference={spec.resource}>
          <AutocompleteInput label={label} />
        </ReferenceInput>,
      );
    else if (spec?.kind === 'enum') filters.push(<SelectInput key={field} source={field} label={label} choices={spec.choices!} />);
    else if (col?.type === 'boolean') filters.push(<NullableBooleanInput key={field} source={field} label={label} />);
  }
  return filters;
}

export interface ListOptions {
  rowClick?: (id: unknown, resource: string, record: Record<string, unknown>) => string;
  /** The columns to show, in order (default: the first eight readable ones). */
  columns?: string[];
  /** Cells drawn otherwise than by their type, by column name: a Field element with source and label. */
  cells?: Record<string, ReactElement>;
  /** Buttons beside Create above the list (inside its list context: export, handoff). */
  actions?: ReactNode;
  /** What selected rows offer instead of the plain delete (bulk edit and delete with progress). */
  bulkActions?: ReactNode;
  /** How long the list waits after typing in its filters before it reloads, in ms (spec §9: 500, documents 200). */
  debounce?: number;
}

/** react-admin's page sizes, with the resource's own (projects' 9999 shows as "All"). */
const pageSizes = (size: number) =>
  [5, 10, 25, 50].includes(size) ? [5, 10, 25, 50] : [...[5, 10, 25, 50].filter((n) => n < size), size >= 1000 ? { label: 'All', value: size } : size];

export function GenericList({ rowClick, columns, cells = {}, actions, bulkActions, debounce = 500 }: ListOptions = {}) {
  const meta = useMeta();
  const shown = columns ? columns.map((name) => ({ name, type: meta.columns.find((c) => c.name === name)?.type ?? 'string' })) : listColumns(meta);
  const canWrite = useCanWrite(meta);
  const [field, dir] = meta.sort[0] ?? ['id', 'asc'];
  const editable = canWrite && meta.routes.update;
  // The filter form waits `debounce` ms before it sets the filters (react-admin reads its delay from
  // the theme's RaFilterForm props only), and the list as long before it reloads.
  const list = (
    <List
      filters={listFilters(meta)}
      filter={meta.permanentFilter}
      sort={{ field, order: dir === 'desc' ? 'DESC' : 'ASC' }}
      perPage={meta.pageSize}
      pagination={<Pagination rowsPerPageOptions={pageSizes(meta.pageSize)} />}
      debounce={debounce}
      exporter={false}
      actions={
        <TopToolbar>
          {actions}
          {canWrite && meta.routes.create ? <CreateButton /> : null}
        </TopToolbar>
      }
      empty={false}
    >
      <Datagrid
        rowClick={rowClick ?? (editable ? 'edit' : false)}
        bulkActionButtons={canWrite && bulkActions ? bulkActions : canWrite && meta.routes.delete ? <BulkDeleteButton mutationMode="pessimistic" /> : false}
      >
        {shown.map((c) => cells[c.name] ?? column(meta, c))}
      </Datagrid>
    </List>
  );
  if (debounce === 500) return list;
  return (
    <ThemeProvider theme={(outer: Theme) => ({ ...outer, components: { ...outer.components, RaFilterForm: { defaultProps: { debounce } } } }) as Theme}>
      {list}
    </ThemeProvider>
  );
}

function inputs(meta: ResourceMeta, specs: FieldSpec[], tweaks: FormTweaks, editing: boolean) {
  const omit = new Set(tweaks.omit ?? []);
  const locked = new Set([...(tweaks.locked ?? []), ...(editing ? meta.immutable : [])]);
  return specs.filter((s) => !omit.has(s.name)).map((s) => <FieldInput key={s.name} spec={s} disabled={locked.has(s.name)} />);
}

/** "Tag 'urgent' created successfully." then back to the list (spec section 8 wording). */
function useSaved(meta: ResourceMeta, verb: 'created' | 'updated') {
  const notify = useNotify();
  const redirect = useRedirect();
  return (data: Record<string, unknown>) => {
    notify('fw.' + verb, { type: 'success', messageArgs: { name: meta.label } });
    redirect('list', meta.name, data.id as never);
  };
}

/** `children`: inputs a generic field cannot draw (a schema-driven configuration, a step list, a preview), after the generic ones. */
export function GenericCreate({
  tweaks = {},
  mutationOptions,
  children,
  defaults,
  transform,
}: {
  tweaks?: FormTweaks;
  mutationOptions?: CreateProps['mutationOptions'];
  children?: ReactNode;
  /** The body from the form's values, where children hold values the server takes in another shape. */
  transform?: CreateProps['transform'];
  /** Starting values where the server's default differs from an empty input's (a switch that starts on). */
  defaults?: Record<string, unknown>;
}) {
  const meta = useMeta();
  const saved = useSaved(meta, 'created');
  return (
    <Create title={`New ${lowerFirst(meta.label)}`} mutationOptions={mutationOptions ?? { onSuccess: saved }} transform={transform}>
      <SimpleForm
        noValidate
        defaultValues={defaults}
        // Enabled on an empty form too, so clicking it names the missing fields.
        toolbar={
          <Toolbar>
            <SaveButton alwaysEnable />
          </Toolbar>
        }
      >
        {inputs(meta, fieldSpecs(meta, meta.create), tweaks, false)}
        {children}
      </SimpleForm>
    </Create>
  );
}

function EditTitle({ meta }: { meta: ResourceMeta }) {
  const record = useRecordContext();
  return <span>{record ? `${meta.label} ${representation(record, meta.name)}` : meta.label}</span>;
}

function EditToolbar({ meta, canDelete }: { meta: ResourceMeta; canDelete: boolean }) {
  const record = useRecordContext();
  const notify = useNotify();
  const redirect = useRedirect();
  return (
    <Toolbar sx={{ justifyContent: 'space-between' }}>
      <SaveButton />
      {canDelete ? (
        <DeleteButton
          mutationMode="pessimistic"
          confirmTitle={`Delete ${lowerFirst(meta.label)} '${representation(record, meta.name)}'?`}
          confirmContent="This cannot be undone."
          mutationOptions={{
            onSuccess: () => {
              notify('fw.deleted', { type: 'success', messageArgs: { name: meta.label } });
              redirect('list', meta.name);
            },
          }}
        />
      ) : null}
    </Toolbar>
  );
}

/**
 * Spec §2 addresses some edit sheets by a record's name (`iaos/IAO-2`, `cases/OCO-1`,
 * `commits/{commit_id}`): the name is looked up and the sheet opens under the record's id.
 */
const ADDRESS_FIELDS: Record<string, string> = { iaos: 'name', cases: 'name', commits: 'commit_id' };

function useAddressedById(meta: ResourceMeta): 'ready' | 'resolving' {
  const { id } = useParams();
  const navigate = useNavigate();
  const notify = useNotify();
  const createPath = useCreatePath();
  const dataProvider = useDataProvider();
  const field = ADDRESS_FIELDS[meta.name];
  const byName = !!id && !/^[0-9]+$/.test(id) && !!field;
  useEffect(() => {
    if (!byName) return;
    dataProvider
      .getList(meta.name, { pagination: { page: 1, perPage: 1 }, filter: { [field]: id } })
      .then((page) => {
        if (page.data[0]) navigate(createPath({ resource: meta.name, id: page.data[0].id, type: 'edit' }), { replace: true });
        else {
          notify(`${meta.label} '${id}' could not be found.`, { type: 'error' });
          navigate(createPath({ resource: meta.name, type: 'list' }), { replace: true });
        }
      })
      .catch((error: Error) => notify(error.message, { type: 'error' }));
  }, [byName, field, id, meta, navigate, notify, createPath, dataProvider]);
  return byName ? 'resolving' : 'ready';
}

/** `aside`: a panel beside the form (a preview, a back-test, where a record was seen). */
export function GenericEdit(props: {
  tweaks?: FormTweaks;
  actions?: RecordAction[];
  aside?: ReactElement;
  children?: ReactNode;
  transform?: EditProps['transform'];
}) {
  const meta = useMeta();
  return useAddressedById(meta) === 'ready' ? <EditById {...props} /> : null;
}

function EditById({
  tweaks = {},
  actions = [],
  aside,
  children,
  transform,
}: {
  tweaks?: FormTweaks;
  actions?: RecordAction[];
  aside?: ReactElement;
  children?: ReactNode;
  transform?: EditProps['transform'];
}) {
  const meta = useMeta();
  const canWrite = useCanWrite(meta, 'update');
  const saved = useSaved(meta, 'updated');
  const notify = useNotify();
  const redirect = useRedirect();
  return (
    <Edit
      title={<EditTitle meta={meta} />}
      // The server's own message ("Tag '42' could not be found."), then the sheet closes to its table.
      queryOptions={{ onError: (error: Error) => (notify(error.message, { type: 'error' }), redirect('list', meta.name)) }}
      mutationMode="pessimistic"
      mutationOptions={{ onSuccess: saved }}
      transform={transform}
      actions={actions.length ? <RecordActions meta={meta} actions={actions} /> : false}
      aside={aside}
    >
      <EditForm meta={meta} toolbar={canWrite ? <EditToolbar meta={meta} canDelete={meta.routes.delete} /> : false}>
        {inputs(meta, fieldSpecs(meta, meta.update, meta.create), canWrite ? tweaks : { ...tweaks, locked: Object.keys(meta.update.properties ?? {}) }, true)}
        {children}
      </EditForm>
    </Edit>
  );
}

/**
 * The edit form, holding each list of references as ids: answers carry them as `{id, name}` objects
 * (the spec's shape), and the reference pickers fetch and match their records by id.
 */
function EditForm({ meta, toolbar, children }: { meta: ResourceMeta; toolbar: ReactElement | false; children: ReactNode }) {
  const record = useRecordContext();
  const held = useMemo(() => {
    if (!record) return record;
    const lists = meta.fields.filter((f) => f.kind === 'references' && Array.isArray(record[f.name]));
    if (!lists.length) return record;
    const ids = (value: unknown[]) => value.map((v) => (v && typeof v === 'object' && 'id' in v ? (v as { id: unknown }).id : v));
    return { ...record, ...Object.fromEntries(lists.map((f) => [f.name, ids(record[f.name] as unknown[])])) };
  }, [meta, record]);
  return (
    <SimpleForm noValidate record={held} toolbar={toolbar}>
      {children}
    </SimpleForm>
  );
}
