import { useEffect, useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useFormContext, useWatch } from 'react-hook-form';
import {
  Alert,
  Autocomplete,
  Box,
  Button,
  Card,
  CardContent,
  Chip,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  MenuItem,
  TextField as MuiTextField,
  Typography,
} from '@mui/material';
import {
  ArrayInput,
  AutocompleteArrayInput,
  BooleanInput,
  FormDataConsumer,
  FunctionField,
  ReferenceArrayInput,
  SelectArrayInput,
  SelectInput,
  SimpleFormIterator,
  useGetList,
  useNotify,
  useRecordContext,
  useRefresh,
  type RaRecord,
} from 'react-admin';
import { GenericCreate, GenericEdit, GenericList, useMeta, utc } from '../engine/screens.js';
import { FieldInput } from '../engine/inputs.js';
import type { FirewatchDataProvider, ItemsPage } from '../core/dataProvider.js';
import { useFirewatchData, useRecordView } from '../core/queries.js';
import { organization } from '../core/org.js';
import { fieldSpecs, metaOf, type FieldSpec } from '../core/meta.js';
import type { Screens } from '../engine/registry.js';

/**
 * Issue 21's screens beyond the generic ones: the plugin instance form drawn from its plugin's JSON
 * schema, the workflow editor's step list, the run dialog that follows its instance, the filter
 * editor's 30-day preview and the webhook delivery log with replay. Each keeps the generic screen and
 * adds only what a field cannot draw.
 */

const panel = { width: 380, ml: 2, alignSelf: 'flex-start' } as const;

// ---------------------------------------------------------------- plugin configuration from its schema

interface SchemaProperty {
  type?: string;
  title?: string;
  default?: unknown;
  format?: string;
  writeOnly?: boolean;
  enum?: string[];
  description?: string;
}
interface CatalogPlugin {
  slug: string;
  type: string;
  title: string;
  description: string;
  configuration_schema: { properties: Record<string, SchemaProperty>; required?: string[] };
}

/** The plugin catalog (GET /plugins): the same for the whole session, so read once. */
function useCatalog() {
  const dataProvider = useFirewatchData();
  const { data } = useQuery({
    queryKey: ['plugins', 'view', 'catalog'],
    queryFn: async () => (await dataProvider.view<ItemsPage<CatalogPlugin>>('plugins', {})).data.items,
    staleTime: Infinity,
    retry: false,
  });
  return data ?? [];
}

/** Spec §5: a property starts from its default, else the empty value of its type. */
export function startingValue(p: SchemaProperty): unknown {
  if (p.default !== undefined) return p.default;
  switch (p.type) {
    case 'string':
      return '';
    case 'number':
    case 'integer':
      return 0;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return null;
  }
}

/** A schema property as a generic field: secrets are password inputs, so a stored one shows masked. */
function propertySpec(name: string, p: SchemaProperty, required: boolean): FieldSpec {
  const kind: FieldSpec['kind'] = p.writeOnly
    ? 'password'
    : p.enum
      ? 'enum'
      : p.type === 'boolean'
        ? 'boolean'
        : p.type === 'number' || p.type === 'integer'
          ? 'number'
          : p.type === 'array'
            ? 'strings'
            : p.type === 'object'
              ? 'json'
              : p.format === 'uri'
                ? 'url'
                : 'text';
  return {
    name,
    label: p.title ?? name,
    kind,
    list: false,
    form: true,
    required,
    nullable: !required,
    help: p.description,
    choices: p.enum?.map((v) => ({ id: v, name: v })),
    empty: p.type === 'array' ? 'array' : p.type === 'object' ? 'object' : undefined,
  };
}

/** The configuration inputs of the chosen plugin; on a new instance each starts from spec §5's value. */
function ConfigurationInputs({ creating }: { creating: boolean }) {
  const plugins = useCatalog();
  const slug = useWatch({ name: 'plugin_slug' }) as string | undefined;
  const { getValues, setValue } = useFormContext();
  const plugin = plugins.find((p) => p.slug === slug);
  const filled = useRef<string | null>(null);
  useEffect(() => {
    if (!plugin || filled.current === plugin.slug) return;
    filled.current = plugin.slug;
    const current = (getValues('configuration') ?? {}) as Record<string, unknown>;
    // A new instance starts afresh for the plugin chosen; an edited one keeps what it has.
    const start: Record<string, unknown> = creating ? {} : { ...current };
    for (const [key, p] of Object.entries(plugin.configuration_schema.properties)) if (start[key] === undefined) start[key] = startingValue(p);
    setValue('configuration', start, { shouldDirty: creating });
  }, [plugin, creating, getValues, setValue]);
  if (!plugin) return null;
  const required = new Set(plugin.configuration_schema.required ?? []);
  const properties = Object.entries(plugin.configuration_schema.properties);
  return (
    <Box sx={{ width: '100%' }} aria-label="Configuration">
      <Typography variant="subtitle1" sx={{ mt: 1 }}>
        Configuration
      </Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
        {plugin.description}
      </Typography>
      {properties.length ? (
        properties.map(([key, p]) => (
          <FieldInput key={`${plugin.slug}.${key}`} spec={propertySpec(key, p, required.has(key))} source={`configuration.${key}`} />
        ))
      ) : (
        <Typography variant="body2">Nothing to configure.</Typography>
      )}
    </Box>
  );
}

const PluginInstanceCreate = () => (
  // Instances and workflows are enabled unless switched off, as the server has it.
  <GenericCreate tweaks={{ omit: ['configuration'] }} defaults={{ enabled: true }}>
    <ConfigurationInputs creating />
  </GenericCreate>
);
const PluginInstanceEdit = () => (
  <GenericEdit tweaks={{ omit: ['configuration'] }}>
    <ConfigurationInputs creating={false} />
  </GenericEdit>
);

// ---------------------------------------------------------------- workflow steps

const text = (name: string, label: string, help?: string, required = false): FieldSpec => ({
  name,
  label,
  kind: 'text',
  list: false,
  form: true,
  required,
  nullable: !required,
  help,
});
const PLACEHOLDERS = 'Placeholders: {{incident.name}}, {{incident.title}}, {{case.name}}, {{parameters.KEY}}, {{run.reason}}';

/** The built-in step engine's steps (server/workflows/engine.ts `runStep`) and their parameters. */
const STEP_KINDS: { id: string; name: string; params: FieldSpec[] }[] = [
  {
    id: 'message',
    name: 'Send a message',
    params: [
      {
        name: 'plugin_instance_id',
        label: 'Conversation plugin',
        kind: 'reference',
        resource: 'plugins/instances',
        referenceFilter: { capability: 'send_message' },
        list: false,
        form: true,
        required: true,
        nullable: false,
      },
      { ...text('text', 'Message', PLACEHOLDERS, true), kind: 'longtext' },
    ],
  },
  {
    id: 'email',
    name: 'Send an e-mail',
    params: [text('to', 'To', undefined, true), text('subject', 'Subject'), { ...text('text', 'Text', PLACEHOLDERS), kind: 'longtext' }],
  },
  {
    id: 'webhook',
    name: 'Call a webhook',
    params: [
      { ...text('url', 'URL', undefined, true), kind: 'url' },
      { ...text('method', 'Method'), kind: 'enum', choices: ['POST', 'PUT', 'PATCH', 'GET', 'DELETE'].map((m) => ({ id: m, name: m })) },
      { ...text('body', 'Body (JSON)', PLACEHOLDERS), kind: 'json', empty: 'object' },
    ],
  },
  { id: 'task', name: 'Create a task', params: [text('description', 'Task', PLACEHOLDERS, true), { ...text('owner_email', 'Owner e-mail'), kind: 'email' }] },
  { id: 'timeline', name: 'Add a timeline event', params: [text('description', 'Event', PLACEHOLDERS, true)] },
  {
    id: 'set_field',
    name: 'Set a field',
    params: [
      { ...text('field', 'Field', undefined, true), kind: 'enum', choices: ['title', 'description', 'resolution'].map((f) => ({ id: f, name: f })) },
      text('value', 'Value', PLACEHOLDERS),
    ],
  },
  { id: 'wait', name: 'Wait', params: [{ ...text('seconds', 'Seconds', undefined, true), kind: 'number', min: 1 }] },
  {
    id: 'switch',
    name: 'Switch (branch on a value)',
    params: [
      text('value', 'Value to switch on', 'e.g. {{incident.status}} or {{parameters.KEY}}', true),
      {
        ...text(
          'cases',
          'Cases',
          'A list of {"equals": "Stable", "steps": [{"kind": "timeline", "with": {"description": "…"}}]}; the first case holding the value runs',
        ),
        kind: 'json',
        empty: 'array',
        required: true,
        nullable: false,
      },
      { ...text('default', 'Default branch', 'Steps run when no case holds the value (empty: none)'), kind: 'json', empty: 'array' },
    ],
  },
];

/** Each step: its kind, then the parameters of that kind (kept under `with`, as the API takes them). */
function StepsInput() {
  return (
    <ArrayInput source="steps" label="Steps (built-in step engine)" helperText="Run in order by the built-in step engine; an HTTP engine ignores them.">
      <SimpleFormIterator disableReordering={false} sx={{ '& .RaSimpleFormIterator-form': { width: '100%' } }}>
        <SelectInput source="kind" label="Step" choices={STEP_KINDS} validate={(v: unknown) => (v ? undefined : 'Required')} />
        <FormDataConsumer>
          {({ scopedFormData }) => {
            const kind = STEP_KINDS.find((k) => k.id === (scopedFormData as { kind?: string } | undefined)?.kind);
            return kind ? (
              <Box sx={{ display: 'flex', flexDirection: 'column', width: '100%' }}>
                {kind.params.map((p) => (
                  <FieldInput key={`${kind.id}.${p.name}`} spec={p} source={`with.${p.name}`} />
                ))}
              </Box>
            ) : null;
          }}
        </FormDataConsumer>
      </SimpleFormIterator>
    </ArrayInput>
  );
}

// ---------------------------------------------------------------- the run dialog

interface Instance {
  id: number;
  status: 'Submitted' | 'Running' | 'Completed' | 'Failed';
  status_reason: string | null;
  artifacts: { name: string; url?: string; description?: string }[];
  workflow?: { id: number; name: string };
  created_at: string;
}
interface WorkflowRecord {
  id: number;
  name: string;
  enabled: boolean;
  parameters: { key: string; value: string }[];
}
interface IncidentOption {
  id: number;
  name: string;
  title: string;
}

/** Spec §4: a run's instance is polled every 5 s until it is Completed or Failed, or gone. */
export const POLL_MS = 5000;

const isGone = (error: unknown) => (error as { status?: number } | null)?.status === 404;

function useInstance(id: number | null) {
  const { data, error } = useRecordView<Instance>('workflows/instances', id ?? undefined, '', {
    globalErrors: false,
    // Polled until it is done or gone; a passing failure is asked again at the next tick.
    refetchInterval: ({ state }) => (state.data?.status === 'Completed' || state.data?.status === 'Failed' || isGone(state.error) ? false : POLL_MS),
    refetchIntervalInBackground: true,
  });
  return { instance: data ?? null, gone: isGone(error) };
}

function InstanceStatus({ id }: { id: number }) {
  const { instance, gone } = useInstance(id);
  if (gone) return <Alert severity="warning">The run is gone.</Alert>;
  if (!instance) return <Typography>Submitting…</Typography>;
  const done = instance.status === 'Completed' || instance.status === 'Failed';
  return (
    <Box role="status" aria-live="polite">
      <Typography sx={{ mb: 1 }}>
        Run #{instance.id}:{' '}
        <Chip size="small" color={instance.status === 'Completed' ? 'success' : instance.status === 'Failed' ? 'error' : 'default'} label={instance.status} />
      </Typography>
      {instance.status_reason ? <Typography variant="body2">{instance.status_reason}</Typography> : null}
      {!done ? (
        <Typography variant="body2" color="text.secondary">
          Checked every {POLL_MS / 1000} s until it completes or fails.
        </Typography>
      ) : null}
      {instance.artifacts.length ? (
        <Box component="ul" sx={{ pl: 2 }} aria-label="Artifacts">
          {instance.artifacts.map((a, i) => (
            <li key={i}>
              {a.url ? (
                <a href={a.url} target="_blank" rel="noreferrer">
                  {a.name}
                </a>
              ) : (
                a.name
              )}
              {a.description ? ` — ${a.description}` : ''}
            </li>
          ))}
        </Box>
      ) : null}
    </Box>
  );
}

type Parameter = { key: string; value: string };

/** What a run is asked with: the workflow, the incident, the reason and the parameters' values. */
interface RunChoice {
  chosen: WorkflowRecord | null;
  target: IncidentOption | null;
  reason: string;
  parameters: Parameter[];
}

/** The run dialog's inputs; the workflow and the incident are offered unless the dialog was opened with one. */
function RunInputs({
  open,
  workflow,
  incident,
  choice,
  onChange,
}: {
  open: boolean;
  workflow?: WorkflowRecord;
  incident?: IncidentOption;
  choice: RunChoice;
  onChange: (next: Partial<RunChoice>) => void;
}) {
  // The servers' default orders: workflows as they were made, the newest incidents first.
  const { data: all = [] } = useGetList<WorkflowRecord & RaRecord>(
    'workflows',
    { pagination: { page: 1, perPage: 100 }, sort: { field: 'id', order: 'ASC' } },
    { enabled: open && !workflow },
  );
  const workflows = all.filter((w) => w.enabled);
  const { data: incidents = [] } = useGetList<IncidentOption & RaRecord>(
    'iaos',
    { pagination: { page: 1, perPage: 50 }, sort: { field: 'reported_at', order: 'DESC' } },
    { enabled: open && !incident },
  );
  const { chosen, target, reason, parameters } = choice;
  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', gap: 2, pt: 1 }}>
      {workflow ? null : (
        <MuiTextField
          select
          label="Workflow"
          value={chosen?.id ?? ''}
          onChange={(e) => {
            const w = workflows.find((x) => x.id === Number(e.target.value)) ?? null;
            onChange({ chosen: w, parameters: w?.parameters ?? [] });
          }}
          required
        >
          {workflows.map((w) => (
            <MenuItem key={w.id} value={w.id}>
              {w.name}
            </MenuItem>
          ))}
        </MuiTextField>
      )}
      {incident ? (
        <Typography>
          Incident {incident.name}: {incident.title}
        </Typography>
      ) : (
        <Autocomplete
          options={incidents}
          value={target}
          onChange={(_e, v) => onChange({ target: v })}
          getOptionLabel={(i) => `${i.name} ${i.title}`}
          isOptionEqualToValue={(a, b) => a.id === b.id}
          renderInput={(params) => <MuiTextField {...params} label="Incident (optional)" />}
        />
      )}
      <MuiTextField label="Run reason" value={reason} onChange={(e) => onChange({ reason: e.target.value })} multiline minRows={2} />
      {parameters.map((p, i) => (
        <MuiTextField
          key={p.key}
          label={`Parameter ${p.key}`}
          value={p.value}
          onChange={(e) => onChange({ parameters: parameters.map((q, j) => (j === i ? { ...q, value: e.target.value } : q)) })}
        />
      ))}
    </Box>
  );
}

/**
 * Runs a workflow (POST /workflows/{id}/run with run_reason, parameters and the incident) and follows
 * its instance. Opened from a workflow (the incident is chosen) or from an incident (the workflow is).
 */
export function RunWorkflowDialog({
  open,
  onClose,
  workflow,
  incident,
}: {
  open: boolean;
  onClose: () => void;
  workflow?: WorkflowRecord;
  incident?: IncidentOption;
}) {
  const notify = useNotify();
  const dataProvider = useFirewatchData();
  const [choice, setChoice] = useState<RunChoice>({ chosen: workflow ?? null, target: incident ?? null, reason: '', parameters: workflow?.parameters ?? [] });
  const [running, setRunning] = useState<number | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (open) setRunning(null);
  }, [open]);
  const { chosen, target, reason, parameters } = choice;
  const run = async () => {
    if (!chosen) return;
    setBusy(true);
    try {
      const { data: instance } = await dataProvider.action<Instance>('workflows', {
        id: chosen.id,
        path: 'run',
        data: {
          run_reason: reason || null,
          parameters: Object.fromEntries(parameters.map((p) => [p.key, p.value])),
          ...(target ? { incident_id: target.id } : {}),
        },
      });
      setRunning(instance.id);
    } catch (error) {
      notify((error as Error).message, { type: 'error' });
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog open={open} onClose={onClose} maxWidth="sm" fullWidth aria-labelledby="run-workflow-title">
      <DialogTitle id="run-workflow-title">Run {chosen ? `workflow ${chosen.name}` : 'a workflow'}</DialogTitle>
      <DialogContent>
        {running === null ? (
          <RunInputs open={open} workflow={workflow} incident={incident} choice={choice} onChange={(next) => setChoice((c) => ({ ...c, ...next }))} />
        ) : (
          <InstanceStatus id={running} />
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Close</Button>
        {running === null ? (
          <Button variant="contained" disabled={!chosen || busy} onClick={() => void run()}>
            Run
          </Button>
        ) : null}
      </DialogActions>
    </Dialog>
  );
}

/** Beside a workflow's form: run it, and its latest runs. */
function WorkflowRuns() {
  const record = useRecordContext<WorkflowRecord & RaRecord>();
  const [open, setOpen] = useState(false);
  // Read again each time the dialog closes (a run may have been added); the newest first, as the server lists them.
  const { data: runs = [] } = useGetList<Instance & RaRecord>(
    'workflows/instances',
    { pagination: { page: 1, perPage: 5 }, sort: { field: 'created_at', order: 'DESC' }, filter: { workflow_id: record?.id } },
    { enabled: !!record && !open },
  );
  if (!record) return null;
  return (
    <Card sx={panel}>
      <CardContent>
        <Typography variant="h6">Runs</Typography>
        <Button variant="contained" size="small" sx={{ my: 1 }} disabled={!record.enabled} onClick={() => setOpen(true)}>
          Run workflow
        </Button>
        {runs.map((r) => (
          <Typography key={r.id} variant="body2">
            #{r.id} {r.status} · {utc(r.created_at)}
            {r.status_reason ? ` · ${r.status_reason}` : ''}
          </Typography>
        ))}
        <RunWorkflowDialog open={open} onClose={() => setOpen(false)} workflow={record} />
      </CardContent>
    </Card>
  );
}

/** The organization's built-in step engine instance (the server makes it on first need); undefined while asking. */
function useBuiltInEngine() {
  const dataProvider = useFirewatchData();
  const [engine, setEngine] = useState<number | null | undefined>(undefined);
  useEffect(() => {
    void dataProvider.action<{ id: number }>('workflows', { path: 'default_engine' }).then(
      ({ data }) => setEngine(data.id),
      () => setEngine(null),
    );
  }, [dataProvider]);
  return engine;
}

/** A new workflow runs on the built-in step engine unless another is picked (left empty, the server uses it too). */
const WorkflowCreate = () => {
  const engine = useBuiltInEngine();
  if (engine === undefined) return null;
  return (
    <GenericCreate tweaks={{ omit: ['steps'] }} defaults={{ enabled: true, ...(engine ? { plugin_instance_id: engine } : {}) }}>
      <StepsInput />
    </GenericCreate>
  );
};
const WorkflowEdit = () => (
  <GenericEdit tweaks={{ omit: ['steps'] }} aside={<WorkflowRuns />}>
    <StepsInput />
  </GenericEdit>
);

/** On an incident's sheet: run one of the workflows on it. */
export function IncidentWorkflows() {
  const record = useRecordContext<IncidentOption & RaRecord>();
  const [open, setOpen] = useState(false);
  if (!record) return null;
  return (
    <Card sx={{ ...panel, width: 240 }}>
      <CardContent>
        <Typography variant="h6">Workflows</Typography>
        <Button variant="outlined" size="small" sx={{ mt: 1 }} onClick={() => setOpen(true)}>
          Run workflow
        </Button>
        {open ? <RunWorkflowDialog open onClose={() => setOpen(false)} incident={{ id: Number(record.id), name: record.name, title: record.title }} /> : null}
      </CardContent>
    </Card>
  );
}

// ---------------------------------------------------------------- the filter editor: picks and preview

interface Preview {
  total: number;
  days: number;
  expression: unknown;
  items: { id: number; name: string; title: string; status: string; reported_at: string }[];
}

type Subject = 'incident' | 'case';

/** POST /search/filters/preview; the screen shows a refusal itself. */
const askPreview = async (dataProvider: FirewatchDataProvider, body: { subject: string; filters?: unknown; expression?: unknown }) =>
  (await dataProvider.action<Preview>('search/filters', { path: 'preview', data: body, globalErrors: false })).data;

/**
 * What a filter picks from, per subject: the server's pick keys (server/notifications/resources.ts
 * filterPicks; a record's by id through its model) and the records offered. Status offers its values.
 */
const PICKS: Record<Subject, { key: string; label: string; resource?: string }[]> = {
  incident: [
    { key: 'status', label: 'Status' },
    { key: 'incident_type', label: 'Incident types', resource: 'incident_types' },
    { key: 'incident_priority', label: 'Incident priorities', resource: 'incident_priorities' },
    { key: 'incident_severity', label: 'Incident severities', resource: 'incident_severities' },
    { key: 'project', label: 'Projects', resource: 'projects' },
    { key: 'tag', label: 'Tags', resource: 'tags' },
  ],
  case: [
    { key: 'status', label: 'Status' },
    { key: 'case_type', label: 'Case types', resource: 'case_types' },
    { key: 'case_priority', label: 'Case priorities', resource: 'case_priorities' },
    { key: 'case_severity', label: 'Case severities', resource: 'case_severities' },
    { key: 'project', label: 'Projects', resource: 'projects' },
    { key: 'tag', label: 'Tags', resource: 'tags' },
  ],
};
const subjectOf = (value: unknown): Subject => (value === 'case' ? 'case' : 'incident');
const idOf = (v: unknown) => (v && typeof v === 'object' && 'id' in v ? (v as { id: unknown }).id : v);

/** The form's picks (ids, or status values) as the server's `filters`: records by `{id}`, the subject's keys only. */
function picksBody(subject: Subject, picks: Record<string, unknown[] | undefined> = {}) {
  return Object.fromEntries(
    PICKS[subject].flatMap(({ key, resource }) => {
      const values = picks[key] ?? [];
      return values.length ? [[key, resource ? values.map((id) => ({ id })) : values]] : [];
    }),
  );
}

/**
 * The body saved: picking, the picks (the server makes the expression from them); otherwise the
 * expression as typed. `picking` and `picks` are the form's own.
 */
function searchFilterBody(data: Record<string, unknown>) {
  const { picking, picks, filters: _answered, ...rest } = data;
  if (!picking) return rest;
  const { expression: _made, ...body } = rest;
  return { ...body, filters: picksBody(subjectOf(rest.subject), picks as Record<string, unknown[]>) };
}

/** One pick list: the organization's records of a kind by name, or the subject's statuses. */
function PickInput({ subject, pick }: { subject: Subject; pick: (typeof PICKS)[Subject][number] }) {
  const record = useRecordContext();
  const source = `picks.${pick.key}`;
  const saved = record?.filters && typeof record.filters === 'object' ? (record.filters as Record<string, unknown[]>)[pick.key] : undefined;
  const defaultValue = (saved ?? []).map(idOf);
  if (!pick.resource) {
    const choices = metaOf(subject === 'case' ? 'cases' : 'iaos')?.fields.find((f) => f.name === 'status')?.choices ?? [];
    return <SelectArrayInput source={source} label={pick.label} choices={choices} defaultValue={defaultValue} />;
  }
  return (
    <ReferenceArrayInput source={source} reference={pick.resource} perPage={100}>
      {/* The saved picks start the input (the reference controller reads what it holds). */}
      <AutocompleteArrayInput label={pick.label} helperText="Any of these" fullWidth defaultValue={defaultValue} />
    </ReferenceArrayInput>
  );
}

/**
 * The picker users expect (spec's search-filter dialog): values per field from the organization's
 * records, all fields together. The JSON expression stays visible, read-only while picking (the one the
 * picks make, as the server answers it), and editable for what picks cannot say.
 */
function SearchFilterInputs() {
  const record = useRecordContext();
  const { setValue } = useFormContext();
  const [subjectValue, picking, picks, expression] = useWatch({ name: ['subject', 'picking', 'picks', 'expression'] }) as [
    unknown,
    boolean | undefined,
    Record<string, unknown[]> | undefined,
    unknown,
  ];
  const subject = subjectOf(subjectValue);
  const meta = useMeta();
  const expressionSpec = fieldSpecs(meta, meta.create).find((f) => f.name === 'expression')!;
  // The picks' expression shown as it will be saved: asked of the server after each change.
  const body = picking ? JSON.stringify(picksBody(subject, picks)) : null;
  const [preview, setPreview] = useState<Preview | null>(null);
  const dataProvider = useFirewatchData();
  useEffect(() => {
    if (!body || body === '{}') return;
    const timer = setTimeout(() => {
      askPreview(dataProvider, { subject, filters: JSON.parse(body) })
        .then((answer) => {
          setValue('expression', answer.expression);
          setPreview(answer);
        })
        .catch(() => setPreview(null));
    }, 300);
    return () => clearTimeout(timer);
  }, [body, subject, setValue, dataProvider]);
  return (
    <Box sx={{ width: '100%' }}>
      <BooleanInput
        source="picking"
        label="Pick values"
        helperText="Off: write the expression as JSON (for conditions picks cannot say)"
        // A saved expression picks cannot say (answered filters: null) opens as JSON.
        defaultValue={!record || (record.filters !== null && record.filters !== undefined)}
      />
      {picking ? PICKS[subject].map((pick) => <PickInput key={`${subject}.${pick.key}`} subject={subject} pick={pick} />) : null}
      {picking ? (
        <Box component="figure" sx={{ my: 1, mx: 0 }}>
          <Typography variant="body2" component="figcaption">
            Expression, made from the picks
          </Typography>
          <Box component="pre" sx={{ m: 0, p: 1, bgcolor: 'action.hover', borderRadius: 1, fontSize: 12, overflowX: 'auto' }}>
            {expression ? JSON.stringify(expression, null, 2) : 'Pick values to make it.'}
          </Box>
        </Box>
      ) : (
        <FieldInput spec={expressionSpec} />
      )}
      <FilterPreview picked={picking ? preview : undefined} />
    </Box>
  );
}

/** What the expression being edited would have matched over the last 30 days (POST /search/filters/preview). */
function FilterPreview({ picked }: { picked?: Preview | null }) {
  const [subject, expression] = useWatch({ name: ['subject', 'expression'] }) as [string | undefined, unknown];
  const [asked, setAsked] = useState<Preview | null>(null);
  const dataProvider = useFirewatchData();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const ask = async () => {
    setBusy(true);
    setError(null);
    try {
      setAsked(await askPreview(dataProvider, { subject: subject || 'incident', expression }));
    } catch (e) {
      setAsked(null);
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  // Picking, the preview follows the picks; otherwise it is asked for.
  const preview = picked === undefined ? asked : picked;
  const valid = !!expression && typeof expression === 'object';
  const base = subject === 'case' ? 'cases' : 'iaos';
  return (
    <Box sx={{ width: '100%', my: 1 }} role="region" aria-label="Preview">
      {picked === undefined ? (
        <Button variant="outlined" size="small" disabled={!valid || busy} onClick={() => void ask()}>
          Preview last 30 days
        </Button>
      ) : null}
      {error ? (
        <Alert severity="error" sx={{ mt: 1 }}>
          {error}
        </Alert>
      ) : null}
      {preview ? (
        <Box sx={{ mt: 1 }} role="status">
          <Typography variant="body2">
            Would have matched {preview.total} {subject === 'case' ? 'case' : 'incident'}
            {preview.total === 1 ? '' : 's'} in the last {preview.days} days
            {preview.total > preview.items.length ? ` (newest ${preview.items.length} shown)` : ''}.
          </Typography>
          <Box component="ul" sx={{ pl: 2, my: 0 }}>
            {preview.items.map((i) => (
              <li key={i.id}>
                <a href={`/${organization}/${base}/${i.id}`}>{i.name}</a> {i.title} · {i.status} · {utc(i.reported_at)}
              </li>
            ))}
          </Box>
        </Box>
      ) : null}
    </Box>
  );
}

const SearchFilterCreate = () => (
  <GenericCreate tweaks={{ omit: ['expression', 'filters'] }} transform={searchFilterBody}>
    <SearchFilterInputs />
  </GenericCreate>
);
const SearchFilterEdit = () => (
  <GenericEdit tweaks={{ omit: ['expression', 'filters'] }} transform={searchFilterBody}>
    <SearchFilterInputs />
  </GenericEdit>
);

// ---------------------------------------------------------------- webhook delivery log with replay

interface Attempt {
  at: string;
  status: number | null;
  error?: string;
  ms: number;
}

function DeliveryAttempts({ record }: { record: RaRecord }) {
  const [open, setOpen] = useState(false);
  const attempts = (record.attempts ?? []) as Attempt[];
  const last = attempts.at(-1);
  return (
    <>
      <Button
        size="small"
        onClick={(e) => {
          e.stopPropagation();
          setOpen(true);
        }}
      >
        {attempts.length} {attempts.length === 1 ? 'attempt' : 'attempts'}
        {last ? ` · ${last.status ?? last.error ?? ''}` : ''}
      </Button>
      <Dialog open={open} onClose={() => setOpen(false)} maxWidth="md" fullWidth aria-labelledby="delivery-title" onClick={(e) => e.stopPropagation()}>
        <DialogTitle id="delivery-title">Delivery {String(record.message_id)}</DialogTitle>
        <DialogContent>
          <Box component="table" sx={{ mb: 2, '& td, & th': { pr: 2, textAlign: 'left' } }}>
            <thead>
              <tr>
                <th>Attempted</th>
                <th>Answer</th>
                <th>Time</th>
              </tr>
            </thead>
            <tbody>
              {attempts.map((a, i) => (
                <tr key={i}>
                  <td>{utc(a.at)}</td>
                  <td>{a.error ?? a.status}</td>
                  <td>{a.ms} ms</td>
                </tr>
              ))}
            </tbody>
          </Box>
          <Box component="pre" aria-label="Payload" tabIndex={0} sx={{ fontSize: 12, bgcolor: 'action.hover', p: 1, overflow: 'auto', maxHeight: 300 }}>
            {JSON.stringify(record.payload, null, 2)}
          </Box>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setOpen(false)}>Close</Button>
        </DialogActions>
      </Dialog>
    </>
  );
}

/** Sends a finished delivery again (same webhook-id, a new series of attempts). */
function ReplayButton({ record }: { record: RaRecord }) {
  const notify = useNotify();
  const refresh = useRefresh();
  const dataProvider = useFirewatchData();
  if (record.status === 'Pending') return null;
  return (
    <Button
      size="small"
      variant="outlined"
      onClick={(e) => {
        e.stopPropagation();
        dataProvider.action('webhooks/deliveries', { id: record.id, path: 'replay' }).then(
          () => {
            notify('Delivery queued again.', { type: 'success' });
            refresh();
          },
          (error: Error) => notify(error.message, { type: 'error' }),
        );
      }}
    >
      Replay
    </Button>
  );
}

const DeliveryList = () => (
  <GenericList
    columns={['created_at', 'event_type', 'endpoint_id', 'status', 'attempts', 'delivered_at', 'replay']}
    cells={{
      attempts: <FunctionField key="attempts" source="attempts" label="Attempts" sortable={false} render={(r) => <DeliveryAttempts record={r} />} />,
      replay: <FunctionField key="replay" source="replay" label="" sortable={false} render={(r) => <ReplayButton record={r} />} />,
    }}
  />
);

export const workflowOverrides: Record<string, Partial<Screens>> = {
  'plugins/instances': { create: PluginInstanceCreate, edit: PluginInstanceEdit },
  workflows: { create: WorkflowCreate, edit: WorkflowEdit },
  'search/filters': { create: SearchFilterCreate, edit: SearchFilterEdit },
  'webhooks/deliveries': { list: DeliveryList },
};
