import { useCallback, useEffect, useId, useRef, useState, type ReactNode } from 'react';
import {
  Button,
  Card,
  CardContent,
  CardHeader,
  Chip,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  IconButton,
  Snackbar,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  TextField,
  ToggleButton,
  Tooltip,
  Typography,
} from '@mui/material';
import LockOutlinedIcon from '@mui/icons-material/LockOutlined';
import StarIcon from '@mui/icons-material/Star';
import StarBorderIcon from '@mui/icons-material/StarBorder';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useGetList, useGetOne, useNotify, useTranslate, type Identifier, type RaRecord } from 'react-admin';
import type { ActionMethod, ItemsPage, RecordPath } from '../core/dataProvider.js';
import { useFirewatchData } from '../core/queries.js';
import { storage } from '../core/org.js';
import { useLiveSocket, type Frame } from '../ai/socket.js';
import { utc } from '../engine/screens.js';
import { ConfirmDialog } from '../engine/ConfirmDialog.js';

export { ConfirmDialog };

/**
 * Parts of the responder's record screens that the incident view (iaos/{name}/view) and the case
 * view (cases/{name}/view) share: titled sections, the timeline with its filter toggles, the tasks.
 */

/* eslint-disable @typescript-eslint/no-explicit-any -- records come straight from the API */
export type ApiRecord = RaRecord<number> & Record<string, any>;

/** The responder screens' words: `t` for fw.responder.*, `r` for fw.room.*, and the translator itself. */
export function useResponderWords() {
  const translate = useTranslate();
  return {
    translate,
    t: (key: string, options?: Record<string, unknown>) => translate(`fw.responder.${key}`, options),
    r: (key: string, options?: Record<string, unknown>) => translate(`fw.room.${key}`, options),
  };
}

/** A titled card; a region named by its heading, so a screen reader (and a test) can go to it. */
export function Section({ title, children }: { title: string; children: ReactNode }) {
  const id = useId();
  return (
    <Card component="section" aria-labelledby={id} sx={{ mb: 2 }}>
      <CardHeader title={title} titleTypographyProps={{ variant: 'h6', component: 'h2', id }} sx={{ pb: 0 }} />
      <CardContent>{children}</CardContent>
    </Card>
  );
}

/** The arguments of an action on one record: its sub-path (`/join`, `/event/5`; '' for the record itself), method and body. */
export type RecordAct = (path: string, init?: { method?: ActionMethod; json?: unknown }, fallback?: string, failure?: string) => Promise<boolean>;

/**
 * A record's comments and the box to add one. The box clears the moment a comment is sent (the page
 * re-reads the record before `send` returns) and gets the text back if it was refused.
 */
export function Comments({ comments, send }: { comments: ApiRecord[]; send: (text: string) => Promise<unknown> }) {
  const translate = useTranslate();
  const [comment, setComment] = useState('');
  return (
    <Section title={translate('fw.responder.comments')}>
      {comments.map((c) => (
        <Typography key={c.id} variant="body2" sx={{ mb: 1 }}>
          {utc(c.created_at)} {c.author_email ?? ''}: {c.text}
        </Typography>
      ))}
      <Stack direction="row" spacing={1} sx={{ mt: 1 }}>
        <TextField
          size="small"
          label={translate('fw.responder.new_comment')}
          value={comment}
          onChange={(e) => setComment(e.target.value)}
          sx={{ flex: 1 }}
          multiline
        />
        <Button
          variant="outlined"
          disabled={!comment.trim()}
          onClick={async () => {
            const text = comment.trim();
            setComment('');
            if (!(await send(text))) setComment(text);
          }}
        >
          {translate('fw.responder.add_comment')}
        </Button>
      </Stack>
    </Section>
  );
}

/** An action's outcome as a notification: the server's own message, or the fallback; a failure's words (spec §8) lead its reason. Errors stay until dismissed. */
export function useAct(reload: () => Promise<unknown>) {
  const notify = useNotify();
  const dataProvider = useFirewatchData();
  return useCallback(
    async (resource: string, at: RecordPath & { method?: ActionMethod; data?: unknown }, fallback = 'Done.', failure?: string) => {
      try {
        const { data: answer } = await dataProvider.action(resource, at);
        notify(answer?.message ?? fallback, { type: 'success' });
        await reload();
        return true;
      } catch (e) {
        // The spec's failure words first, then the server's reason (what to correct).
        notify(failure ? `${failure} ${(e as Error).message}` : (e as Error).message, { type: 'error', autoHideDuration: 0 });
        // A refusal (e.g. 'already stable') means the page was behind: show the record as it is now.
        await reload().catch(() => undefined);
        return false;
      }
    },
    [notify, reload, dataProvider],
  );
}

/** useAct bound to one record: `act('/join')`, `act('', { method: 'PUT', json })`. */
export function useRecordAct(resource: 'iaos' | 'cases', id: Identifier | undefined, reload: () => Promise<unknown>): RecordAct {
  const act = useAct(reload);
  return useCallback<RecordAct>(
    (path, init, fallback, failure) => act(resource, { id, path: path.replace(/^\//, ''), method: init?.method, data: init?.json }, fallback, failure),
    [act, resource, id],
  );
}

// A list's rows fill react-admin's getOne cache with their list shape; the full record (events,
// steps, tasks) is kept under a key of its own.
const FULL = { view: 'full' };

/**
 * Loads a record by its name (IAO-3, OCO-7) through the list filter, then its full GET; polls while
 * `pollUntil` is false. `load` reads the record and then its views again.
 */
export function useRecordByName(resource: 'iaos' | 'cases', name: string, pollUntil?: (record: ApiRecord) => boolean) {
  const notify = useNotify();
  const queryClient = useQueryClient();
  const onError = (e: Error) => notify(e.message, { type: 'error', autoHideDuration: 0 });
  const found = useGetList<ApiRecord>(resource, { filter: { name }, pagination: { page: 1, perPage: 1 } }, { onError });
  const id = found.data?.[0]?.id as number | undefined;
  // Spec §4: after creation (or escalation) the client polls every 5 s until the conversation or conference exists.
  const { data: record = null } = useGetOne<ApiRecord>(
    resource,
    { id, meta: FULL },
    {
      enabled: id !== undefined,
      onError,
      retry: false,
      refetchInterval: (query) => (query.state.data && pollUntil && !pollUntil(query.state.data) ? 5000 : false),
    },
  );
  const missing = found.data?.length === 0;
  const load = useCallback(async () => {
    if (id === undefined) return queryClient.invalidateQueries({ queryKey: [resource, 'getList'] });
    // The record first (the name's id does not change), then what is read with it: costs, conversation.
    await queryClient.invalidateQueries({ queryKey: [resource, 'getOne', { id: String(id), meta: FULL }] });
    await queryClient.invalidateQueries({ queryKey: [resource, 'view', String(id)] });
  }, [queryClient, resource, id]);
  // Live: the socket watches this record; each change anyone commits (from any app process) sends a
  // `changed` frame, and the page fetches the record again.
  const [watching, setWatching] = useState(false);
  const { connected, request } = useLiveSocket({ token: storage.token }, (frame: Frame) => {
    if (frame.type === 'changed') void load().catch(() => undefined);
  });
  useEffect(() => {
    setWatching(false);
    if (!connected || id === undefined) return;
    let cancelled = false;
    void request('watch', resource === 'iaos' ? { incident_id: id } : { case_id: id }).then(
      (f) => {
        if (cancelled || f.type !== 'watching') return;
        setWatching(true);
        // What changed while the socket was down.
        void load().catch(() => undefined);
      },
      () => undefined,
    );
    return () => {
      cancelled = true;
    };
  }, [connected, id, resource, request, load]);
  return { record, missing, load, live: connected && watching };
}

/**
 * Incidents like this one (null while loading, none on a failure), read once per `key`: they change
 * with other incidents, not with this record.
 */
export function useSimilarIncidents(incidentId: number | null | undefined, key?: unknown) {
  const dataProvider = useFirewatchData();
  const { data, isError } = useQuery({
    queryKey: ['similar-incidents', incidentId, key],
    queryFn: async () => (await dataProvider.view<ItemsPage<ApiRecord>>('iaos', { path: `similar-incidents/${incidentId}` })).data.items,
    enabled: !!incidentId,
    staleTime: Infinity,
    retry: false,
  });
  return isError ? [] : (data ?? null);
}

/** Whether the page is live (watching its record) or reconnecting. */
export function LiveChip({ live }: { live: boolean }) {
  const translate = useTranslate();
  return (
    <Tooltip title={translate('fw.room.live_help')}>
      <Chip
        size="small"
        variant="outlined"
        color={live ? 'success' : 'default'}
        label={translate(live ? 'fw.room.live' : 'fw.room.offline')}
        data-testid="live-state"
      />
    </Tooltip>
  );
}

/**
 * A record page's heading: its name and title, its status as a chip in its colour, its other facts as
 * outlined chips (those it has), and whether the page is live.
 */
export function RecordHeading(props: {
  record: ApiRecord;
  statusColor: 'error' | 'primary' | 'default';
  facts: (string | false | null | undefined)[];
  live: boolean;
  statusTestId?: string;
}) {
  const { t } = useResponderWords();
  const { record, statusColor, facts, live, statusTestId } = props;
  return (
    <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap', mb: 2, gap: 1 }}>
      <Typography variant="h5" component="h1">
        {record.name}: {record.title}
      </Typography>
      <Chip label={record.status} color={statusColor} aria-label={t('status_is', { status: record.status })} data-testid={statusTestId} />
      {facts
        .filter((fact): fact is string => !!fact)
        .map((fact) => (
          <Chip key={fact} variant="outlined" label={fact} />
        ))}
      <LiveChip live={live} />
    </Stack>
  );
}

interface Filter {
  key: string;
  label: string;
  default: boolean;
}

/** The timeline toggles a person chose, kept in this browser. */
const FILTERS_KEY = 'fw.timeline.filters';
function savedFilters(): Record<string, boolean> {
  try {
    return JSON.parse(localStorage.getItem(FILTERS_KEY) ?? '{}') as Record<string, boolean>;
  } catch {
    return {};
  }
}

/**
 * The timeline's filter toggles: their defaults come from the server, a person's choices are
 * remembered; answers the events they let through, pinned ones first.
 */
function useTimelineFilters(events: ApiRecord[]) {
  const dataProvider = useFirewatchData();
  // The filters and their defaults are the server's, the same for every record: read once.
  const { data: config } = useQuery({
    queryKey: ['timeline-filters'],
    queryFn: async () => (await dataProvider.view<{ filters: Filter[]; event_types: Record<string, string> }>('iaos', { path: 'timeline/filters' })).data,
    staleTime: Infinity,
  });
  const filters = config?.filters ?? [];
  const eventTypes = config?.event_types ?? {};
  const [chosen, setOn] = useState<Record<string, boolean>>(savedFilters);
  const on: Record<string, boolean> = { ...Object.fromEntries(filters.map((x) => [x.key, x.default])), ...chosen };
  const toggle = (key: string) => {
    const next = { ...on, [key]: !on[key] };
    setOn(next);
    localStorage.setItem(FILTERS_KEY, JSON.stringify(next));
  };
  // User curated events are off by default (spec §9); one added while the page is open is still shown.
  const seen = useRef<Set<unknown> | null>(null);
  useEffect(() => {
    const ids = new Set(events.filter(isCustom).map((e) => e.id));
    if (seen.current && [...ids].some((id) => !seen.current!.has(id))) setOn((o) => ({ ...o, user_curated_events: true }));
    if (filters.length) seen.current = ids;
  }, [events, filters.length]);
  // Pinned events rise to the top and stay in view whatever the filters.
  const shown = [...events.filter((e) => e.pinned), ...events.filter((e) => !e.pinned && (on[eventTypes[e.type] ?? 'other_events'] ?? true))];
  return { filters, on, toggle, shown };
}

const isCustom = (e: ApiRecord) => e.type === 'Custom event';

/**
 * The timeline with the spec's filter toggles. Pin, edit and delete are offered when `act` is given
 * (incidents; a case's timeline is its record of changes). System entries cannot be edited or
 * deleted; a custom event can, after a confirmation, with an undo.
 */
export function Timeline({ events, act }: { events: ApiRecord[]; act?: RecordAct }) {
  const translate = useTranslate();
  const { filters, on, toggle, shown } = useTimelineFilters(events);
  const [deleting, setDeleting] = useState<ApiRecord | null>(null);
  const [editing, setEditing] = useState<ApiRecord | null>(null);
  return (
    <Section title={translate('fw.responder.timeline')}>
      <Stack direction="row" sx={{ flexWrap: 'wrap', gap: 0.5, mb: 1 }} role="group" aria-label={translate('fw.responder.timeline_filters')}>
        {filters.map((f) => (
          <ToggleButton
            key={f.key}
            size="small"
            value={f.key}
            selected={!!on[f.key]}
            color="primary"
            onChange={() => toggle(f.key)}
            sx={{ '&.Mui-selected': { fontWeight: 700 } }}
          >
            {on[f.key] ? '✓ ' : ''}
            {f.label}
          </ToggleButton>
        ))}
      </Stack>
      <Table size="small" aria-label={translate('fw.responder.timeline')}>
        <TableBody>
          {shown.map((e) => (
            <TableRow key={e.id}>
              <TableCell sx={{ whiteSpace: 'nowrap' }}>{utc(e.started_at)}</TableCell>
              <TableCell>
                {e.description}
                <Typography variant="caption" display="block">
                  {e.type} · {e.source}
                  {e.owner ? ` · ${e.owner}` : ''}
                </Typography>
              </TableCell>
              {act ? <EventActions event={e} act={act} onEdit={setEditing} onDelete={setDeleting} /> : null}
            </TableRow>
          ))}
          {shown.length ? null : (
            <TableRow>
              <TableCell>{translate('fw.responder.no_events')}</TableCell>
            </TableRow>
          )}
        </TableBody>
      </Table>
      {act ? (
        <EventChanges act={act} deleting={deleting} editing={editing} onDeleteClose={() => setDeleting(null)} onEditClose={() => setEditing(null)} />
      ) : null}
    </Section>
  );
}

/** An event's row actions: the pin (a star), and for a custom event edit and delete; a system entry shows a lock. */
function EventActions({
  event: e,
  act,
  onEdit,
  onDelete,
}: {
  event: ApiRecord;
  act: RecordAct;
  onEdit: (e: ApiRecord) => void;
  onDelete: (e: ApiRecord) => void;
}) {
  const translate = useTranslate();
  return (
    <TableCell sx={{ whiteSpace: 'nowrap' }}>
      <IconButton
        size="small"
        aria-label={translate(e.pinned ? 'fw.responder.unpin' : 'fw.responder.pin')}
        onClick={() => void act('/event', { method: 'PATCH', json: { id: e.id, pinned: !e.pinned } }, translate('fw.responder.event_updated'))}
      >
        {e.pinned ? <StarIcon fontSize="small" color="warning" /> : <StarBorderIcon fontSize="small" />}
      </IconButton>
      {isCustom(e) ? (
        <>
          <IconButton size="small" aria-label={translate('fw.room.edit_event')} onClick={() => onEdit(e)}>
            ✎
          </IconButton>
          <IconButton size="small" aria-label={translate('fw.responder.delete_event')} onClick={() => onDelete(e)}>
            ✕
          </IconButton>
        </>
      ) : (
        <Tooltip title={translate('fw.room.system_event')}>
          <LockOutlinedIcon
            fontSize="small"
            color="action"
            role="img"
            aria-label={translate('fw.room.system_event')}
            aria-hidden={false}
            sx={{ verticalAlign: 'middle', mx: 0.5 }}
          />
        </Tooltip>
      )}
    </TableCell>
  );
}

/** Deleting an event (confirmed, then undoable for 10 s) and editing one. */
function EventChanges({
  act,
  deleting,
  editing,
  onDeleteClose,
  onEditClose,
}: {
  act: RecordAct;
  deleting: ApiRecord | null;
  editing: ApiRecord | null;
  onDeleteClose: () => void;
  onEditClose: () => void;
}) {
  const translate = useTranslate();
  const [undo, setUndo] = useState<ApiRecord | null>(null);
  const restore = async () => {
    const e = undo!;
    setUndo(null);
    // Undo writes the event again as it was (same text, time, details and pin).
    await act(
      '/event',
      { method: 'POST', json: { description: e.description, started_at: e.started_at, details: e.details ?? null, pinned: !!e.pinned } },
      translate('fw.room.event_restored'),
    );
  };
  return (
    <>
      {deleting ? (
        <ConfirmDialog
          title={translate('fw.room.delete_event_title')}
          body={translate('fw.room.delete_event_body', { description: deleting.description })}
          confirm={translate('fw.responder.delete_event')}
          onClose={onDeleteClose}
          onConfirm={async () => {
            const gone = deleting;
            if (await act(`/event/${gone.id}`, { method: 'DELETE' }, translate('fw.responder.event_deleted'))) setUndo(gone);
          }}
        />
      ) : null}
      {editing ? (
        <EventDialog
          title={translate('fw.room.edit_event_title')}
          timeLabel={translate('fw.room.event_time')}
          timeKey="started_at"
          saveLabel={translate('fw.room.save')}
          initial={{ description: editing.description, at: String(editing.started_at) }}
          onClose={onEditClose}
          submit={(json) => act('/event', { method: 'PATCH', json: { id: editing.id, ...json } }, translate('fw.responder.event_updated'))}
        />
      ) : null}
      <Snackbar
        open={undo !== null}
        autoHideDuration={10_000}
        onClose={() => setUndo(null)}
        message={translate('fw.responder.event_deleted')}
        action={
          <Button color="inherit" size="small" onClick={() => void restore()}>
            {translate('fw.room.undo')}
          </Button>
        }
      />
    </>
  );
}

/**
 * A timeline event's text and time, for adding one (the time it happened after) or editing one (the
 * time it started): the same two fields, under the words and body key the caller gives.
 */
export function EventDialog(props: {
  title: string;
  timeLabel: string;
  timeKey: 'after' | 'started_at';
  saveLabel: string;
  initial?: { description: string; at: string };
  onClose: () => void;
  submit: (json: Record<string, unknown>) => Promise<boolean>;
}) {
  const translate = useTranslate();
  const [description, setDescription] = useState<string>(props.initial?.description ?? '');
  const [at, setAt] = useState<string>((props.initial?.at ?? new Date().toISOString()).slice(0, 19));
  return (
    <Dialog open onClose={props.onClose} aria-labelledby="event-title" fullWidth>
      <DialogTitle id="event-title">{props.title}</DialogTitle>
      <DialogContent>
        <TextField
          label={translate('fw.responder.description')}
          value={description}
          onChange={(e) => setDescription(e.target.value)}
          fullWidth
          multiline
          sx={{ mt: 1 }}
        />
        <TextField
          label={props.timeLabel}
          type="datetime-local"
          value={at}
          onChange={(e) => setAt(e.target.value)}
          fullWidth
          sx={{ mt: 2 }}
          slotProps={{ inputLabel: { shrink: true }, htmlInput: { step: 1 } }}
        />
      </DialogContent>
      <DialogActions>
        <Button onClick={props.onClose}>{translate('ra.action.cancel')}</Button>
        <Button
          variant="contained"
          disabled={!description.trim()}
          onClick={async () => (await props.submit({ description: description.trim(), [props.timeKey]: `${at}Z` })) && props.onClose()}
        >
          {props.saveLabel}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

/** The record's tasks: resolve or reopen each, add one (linked to the incident or the case). */
export function Tasks({ tasks, owner, reload }: { tasks: ApiRecord[]; owner: { incident_id: number } | { case_id: number }; reload: () => Promise<unknown> }) {
  const translate = useTranslate();
  const act = useAct(reload);
  const [text, setText] = useState('');
  return (
    <Section title={translate('fw.responder.tasks')}>
      <Table size="small" aria-label={translate('fw.responder.tasks')}>
        <TableHead>
          <TableRow>
            <TableCell>{translate('fw.responder.task')}</TableCell>
            <TableCell>{translate('fw.responder.status')}</TableCell>
            <TableCell />
          </TableRow>
        </TableHead>
        <TableBody>
          {tasks.map((t) => (
            <TableRow key={t.id}>
              <TableCell>{t.description}</TableCell>
              <TableCell>{t.status}</TableCell>
              <TableCell>
                <Button size="small" onClick={() => void act('tasks', { id: t.id, path: t.status === 'Open' ? 'mark-resolved' : 'mark-open' })}>
                  {translate(t.status === 'Open' ? 'fw.responder.resolve' : 'fw.responder.reopen')}
                </Button>
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      <Stack direction="row" spacing={1} sx={{ mt: 1 }}>
        <TextField size="small" label={translate('fw.responder.new_task')} value={text} onChange={(e) => setText(e.target.value)} sx={{ flex: 1 }} />
        <Button
          variant="outlined"
          disabled={!text.trim()}
          onClick={async () => {
            if (await act('tasks', { data: { description: text.trim(), ...owner } }, translate('fw.created', { name: 'Task' }))) setText('');
          }}
        >
          {translate('fw.responder.add_task')}
        </Button>
      </Stack>
    </Section>
  );
}

/** A run's status as a chip: running ones stand out, failed ones in red. */
const RUN_COLOR: Record<string, 'default' | 'info' | 'success' | 'error'> = { Submitted: 'default', Running: 'info', Completed: 'success', Failed: 'error' };

/**
 * The workflow runs on this incident or case, newest first, live like the rest of the page: a run
 * started anywhere (a person, a status trigger, an escalation) and each status it reaches show here.
 */
export function WorkflowRuns({ runs, owner, action }: { runs: ApiRecord[]; owner: 'incident' | 'case'; action?: ReactNode }) {
  const translate = useTranslate();
  const t = (key: string, options?: Record<string, unknown>) => translate(`fw.room.${key}`, options);
  const newest = [...runs].sort((a, b) => b.id - a.id);
  return (
    <Section title={t('workflow_runs')}>
      {newest.length ? (
        <Table size="small" aria-label={t('workflow_runs')}>
          <TableHead>
            <TableRow>
              <TableCell>{t('workflow')}</TableCell>
              <TableCell>{t('run_status')}</TableCell>
              <TableCell>{t('run_started')}</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {newest.map((run) => (
              <TableRow key={run.id}>
                <TableCell>
                  {run.workflow?.name ?? t('workflow_gone')}
                  {run.run_reason ? (
                    <Typography variant="caption" component="div">
                      {run.run_reason}
                    </Typography>
                  ) : null}
                </TableCell>
                <TableCell>
                  <Chip
                    size="small"
                    label={run.status}
                    color={RUN_COLOR[run.status] ?? 'default'}
                    variant={run.status === 'Completed' ? 'outlined' : 'filled'}
                  />
                  {run.status_reason ? (
                    <Typography variant="caption" component="div">
                      {run.status_reason}
                    </Typography>
                  ) : null}
                </TableCell>
                <TableCell>{utc(run.created_at)}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      ) : (
        <Typography variant="body2">{t(owner === 'incident' ? 'no_runs_incident' : 'no_runs_case')}</Typography>
      )}
      {action}
    </Section>
  );
}
