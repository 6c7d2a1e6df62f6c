import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { Button, Card, CardContent, CardHeader, IconButton, Stack, Table, TableBody, TableCell, TableHead, TableRow, TextField, ToggleButton, Typography } from '@mui/material';
import { useNotify, useTranslate } from 'react-admin';
import { api } from '../../providers/http.js';
import { utc } from '../generic/screens.js';

/**
 * Parts of the responder's record screens that the incident view (iaos/{name}/view) and the case
 * view (cases/{name}/view) share: titled sections, the timeline with its filter toggles, the tasks.
 */

/* eslint-disable @typescript-eslint/no-explicit-any -- records come straight from the API */
export type ApiRecord = Record<string, any>;

export function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Card sx={{ mb: 2 }}>
      <CardHeader title={title} titleTypographyProps={{ variant: 'h6', component: 'h2' }} sx={{ pb: 0 }} />
      <CardContent>{children}</CardContent>
    </Card>
  );
}

/** An action's outcome as a notification: the server's own message, or the fallback. Errors stay until dismissed. */
export function useAct(reload: () => Promise<unknown>) {
  const notify = useNotify();
  return useCallback(
    async (path: string, init: RequestInit & { json?: unknown } = { method: 'POST' }, fallback = 'Done.', failure?: string) => {
      try {
        const answer = await api<{ message?: string } | null>(path, init);
        notify(answer?.message ?? fallback, { type: 'success' });
        await reload();
        return true;
      } catch (e) {
        notify(failure ?? (e as Error).message, { type: 'error', autoHideDuration: 0 });
        return false;
      }
    },
    [notify, reload],
  );
}

/** Loads a record by its name (IAO-3, OCO-7) through the list filter, then its full GET; polls while `until` is false. */
export function useRecordByName(path: '/iaos' | '/cases', name: string, pollUntil?: (record: ApiRecord) => boolean) {
  const notify = useNotify();
  const [record, setRecord] = useState<ApiRecord | null>(null);
  const [missing, setMissing] = useState(false);
  const load = useCallback(async () => {
    const page = await api<{ items: ApiRecord[] }>(`${path}?filter=${encodeURIComponent(JSON.stringify({ and: [{ field: 'name', op: '==', value: name }] }))}`);
    const hit = page.items[0];
    if (!hit) return setMissing(true);
    setRecord(await api<ApiRecord>(`${path}/${hit.id}`));
  }, [path, name]);
  useEffect(() => {
    void load().catch((e: Error) => notify(e.message, { type: 'error', autoHideDuration: 0 }));
  }, [load, notify]);
  // Spec §4: after creation (or escalation) the client polls every 5 s until the conversation or conference exists.
  const waiting = record !== null && pollUntil !== undefined && !pollUntil(record);
  useEffect(() => {
    if (!waiting) return;
    const timer = setInterval(() => void load().catch(() => undefined), 5000);
    return () => clearInterval(timer);
  }, [waiting, load]);
  return { record, missing, load };
}

interface Filter {
  key: string;
  label: string;
  default: boolean;
}

/**
 * The timeline with the spec's filter toggles (their defaults come from the server). Pin and
 * delete are offered when `act` is given (incidents; a case's timeline is its record of changes).
 */
export function Timeline({ events, act }: { events: ApiRecord[]; act?: (path: string, init: RequestInit & { json?: unknown }, fallback: string) => Promise<boolean> }) {
  const translate = useTranslate();
  const [filters, setFilters] = useState<Filter[]>([]);
  const [eventTypes, setEventTypes] = useState<Record<string, string>>({});
  const [on, setOn] = useState<Record<string, boolean>>({});
  useEffect(() => {
    void api<{ filters: Filter[]; event_types: Record<string, string> }>('/iaos/timeline/filters').then((f) => {
      setFilters(f.filters);
      setEventTypes(f.event_types);
      setOn(Object.fromEntries(f.filters.map((x) => [x.key, x.default])));
    });
  }, []);
  const shown = events.filter((e) => on[eventTypes[e.type] ?? 'other_events'] ?? true);
  return (
    <Section title={translate('fw.responder.timeline')}>
      <Stack direction="row" sx={{ flexWrap: 'wrap', gap: 0.5, mb: 1 }} role="group" aria-label={translate('fw.responder.timeline_filters')}>
        {filters.map((f) => (
          <ToggleButton key={f.key} size="small" value={f.key} selected={!!on[f.key]} onChange={() => setOn({ ...on, [f.key]: !on[f.key] })}>
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
                {e.pinned ? '📌 ' : ''}
                {e.description}
                <Typography variant="caption" display="block">
                  {e.type} · {e.source}
                </Typography>
              </TableCell>
              {act ? (
                <TableCell sx={{ whiteSpace: 'nowrap' }}>
                  <IconButton size="small" aria-label={translate(e.pinned ? 'fw.responder.unpin' : 'fw.responder.pin')} onClick={() => void act('/event', { method: 'PATCH', json: { id: e.id, pinned: !e.pinned } }, translate('fw.responder.event_updated'))}>
                    {e.pinned ? '☆' : '★'}
                  </IconButton>
                  <IconButton size="small" aria-label={translate('fw.responder.delete_event')} onClick={() => void act(`/event/${e.id}`, { method: 'DELETE' }, translate('fw.responder.event_deleted'))}>
                    ✕
                  </IconButton>
                </TableCell>
              ) : null}
            </TableRow>
          ))}
          {shown.length ? null : (
            <TableRow>
              <TableCell>{translate('fw.responder.no_events')}</TableCell>
            </TableRow>
          )}
        </TableBody>
      </Table>
    </Section>
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
                <Button size="small" onClick={() => void act(`/tasks/${t.id}/${t.status === 'Open' ? 'mark-resolved' : 'mark-open'}`)}>
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
            if (await act('/tasks', { method: 'POST', json: { description: text.trim(), ...owner } }, translate('fw.created', { name: 'Task' }))) setText('');
          }}
        >
          {translate('fw.responder.add_task')}
        </Button>
      </Stack>
    </Section>
  );
}
