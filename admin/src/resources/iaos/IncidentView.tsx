import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { useParams } from 'react-router-dom';
import {
  Box,
  Button,
  Card,
  CardContent,
  CardHeader,
  Chip,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Grid,
  IconButton,
  MenuItem,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  TextField,
  ToggleButton,
  Typography,
} from '@mui/material';
import { Title, useNotify } from 'react-admin';
import { api } from '../../providers/http.js';
import { utc } from '../generic/screens.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- records come straight from the API */
type Incident = Record<string, any>;
interface Filter {
  key: string;
  label: string;
  default: boolean;
}

const money = (n: number) => n.toLocaleString('en-US', { style: 'currency', currency: 'USD', maximumSignificantDigits: 6 });

/**
 * iaos/{name}/view: what a responder works from during an incident. The header carries the
 * lifecycle actions; below it the timeline (with the spec's filter toggles), roles, tasks, costs,
 * reports, resources and steps. Every action answers with the server's message.
 */
export function IncidentView() {
  const { name = '' } = useParams();
  const notify = useNotify();
  const [incident, setIncident] = useState<Incident | null>(null);
  const [missing, setMissing] = useState(false);
  const [filters, setFilters] = useState<Filter[]>([]);
  const [eventTypes, setEventTypes] = useState<Record<string, string>>({});
  const [on, setOn] = useState<Record<string, boolean>>({});
  const [cost, setCost] = useState<any>(null);
  const [dialog, setDialog] = useState<null | 'report' | 'event' | 'resource' | 'summary'>(null);
  const [summary, setSummary] = useState<string>('');

  const load = useCallback(async () => {
    const page = await api<{ items: Incident[] }>(`/iaos?filter=${encodeURIComponent(JSON.stringify({ and: [{ field: 'name', op: '==', value: name }] }))}`);
    const hit = page.items[0];
    if (!hit) return setMissing(true);
    const full = await api<Incident>(`/iaos/${hit.id}`);
    setIncident(full);
    setCost(await api(`/iaos/${hit.id}/costs`));
  }, [name]);

  useEffect(() => {
    void load().catch((e: Error) => notify(e.message, { type: 'error', autoHideDuration: 0 }));
    void api<{ filters: Filter[]; event_types: Record<string, string> }>('/iaos/timeline/filters').then((f) => {
      setFilters(f.filters);
      setEventTypes(f.event_types);
      setOn(Object.fromEntries(f.filters.map((x) => [x.key, x.default])));
    });
  }, [load, notify]);

  // Spec §4: after creation the client polls every 5 s until the conversation exists.
  useEffect(() => {
    if (!incident || incident.conversation_id) return;
    const timer = setInterval(() => void load(), 5000);
    return () => clearInterval(timer);
  }, [incident, load]);

  const act = async (path: string, init: RequestInit & { json?: unknown } = { method: 'POST' }, fallback = 'Done.') => {
    try {
      const answer = await api<{ message?: string } | null>(`/iaos/${incident!.id}${path}`, init);
      notify(answer?.message ?? fallback, { type: 'success' });
      await load();
      return true;
    } catch (e) {
      notify((e as Error).message, { type: 'error', autoHideDuration: 0 });
      return false;
    }
  };

  if (missing) return <Typography sx={{ m: 2 }}>{`IAO '${name}' could not be found.`}</Typography>;
  if (!incident) return <Typography sx={{ m: 2 }}>Loading…</Typography>;
  const status = incident.status as string;
  const events = (incident.events as any[]).filter((e) => on[eventTypes[e.type] ?? 'other_events'] ?? true);

  return (
    <Box sx={{ p: 2 }}>
      <Title title={`${incident.name} ${incident.title}`} />
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap', mb: 2 }}>
        <Typography variant="h5" component="h1">
          {incident.name}: {incident.title}
        </Typography>
        <Chip label={status} color={status === 'Active' ? 'error' : status === 'Stable' ? 'warning' : 'default'} aria-label={`Status ${status}`} />
        {incident.incident_type_name ? <Chip variant="outlined" label={incident.incident_type_name} /> : null}
        {incident.incident_priority_name ? <Chip variant="outlined" label={`Priority ${incident.incident_priority_name}`} /> : null}
      </Stack>
      <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap', mb: 2, gap: 1 }}>
        {!incident.is_participant ? <Button variant="contained" onClick={() => void act('/join')}>Join</Button> : null}
        {!incident.subscribed ? <Button variant="outlined" onClick={() => void act('/subscribe')}>Subscribe</Button> : null}
        {status === 'Active' ? <Button variant="outlined" onClick={() => void act('/stable')}>Mark stable</Button> : null}
        {status !== 'Closed' ? <Button variant="outlined" onClick={() => void act('/closed')}>Mark closed</Button> : <Button variant="outlined" onClick={() => void act('/active')}>Reopen</Button>}
        <Button variant="outlined" onClick={() => setDialog('report')}>Report</Button>
        <Button variant="outlined" onClick={() => setDialog('event')}>Add event</Button>
        <Button variant="outlined" onClick={() => setDialog('resource')}>Add resource</Button>
        <Button variant="outlined" onClick={() => void act('/postmortem/create')}>Create postmortem</Button>
      </Stack>
      <Typography variant="body2" sx={{ mb: 2 }}>
        Commander {incident.commander_email ?? 'unassigned'} · reported {utc(incident.reported_at)}
        {incident.stable_at ? ` · stable ${utc(incident.stable_at)}` : ''}
        {incident.closed_at ? ` · closed ${utc(incident.closed_at)}` : ''}
        {incident.conference_url ? (
          <>
            {' · '}
            <a href={incident.conference_url} target="_blank" rel="noreferrer">
              Conference
            </a>
          </>
        ) : (
          ' · conversation being created…'
        )}
      </Typography>

      <Grid container spacing={2}>
        <Grid size={{ xs: 12, md: 7 }}>
          <Section title="Timeline">
            <Stack direction="row" sx={{ flexWrap: 'wrap', gap: 0.5, mb: 1 }} role="group" aria-label="Timeline filters">
              {filters.map((f) => (
                <ToggleButton key={f.key} size="small" value={f.key} selected={!!on[f.key]} onChange={() => setOn({ ...on, [f.key]: !on[f.key] })}>
                  {f.label}
                </ToggleButton>
              ))}
            </Stack>
            <Table size="small" aria-label="Timeline">
              <TableBody>
                {events.map((e) => (
                  <TableRow key={e.id}>
                    <TableCell sx={{ whiteSpace: 'nowrap' }}>{utc(e.started_at)}</TableCell>
                    <TableCell>
                      {e.pinned ? '📌 ' : ''}
                      {e.description}
                      <Typography variant="caption" display="block">
                        {e.type} · {e.source}
                      </Typography>
                    </TableCell>
                    <TableCell sx={{ whiteSpace: 'nowrap' }}>
                      <IconButton size="small" aria-label={e.pinned ? 'Unpin' : 'Pin'} onClick={() => void act('/event', { method: 'PATCH', json: { id: e.id, pinned: !e.pinned } }, 'Event updated.')}>
                        {e.pinned ? '☆' : '★'}
                      </IconButton>
                      <IconButton size="small" aria-label="Delete event" onClick={() => void act(`/event/${e.id}`, { method: 'DELETE' }, 'Event deleted.')}>
                        ✕
                      </IconButton>
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </Section>
        </Grid>
        <Grid size={{ xs: 12, md: 5 }}>
          <Section title="Roles">
            <Table size="small" aria-label="Roles">
              <TableBody>
                {(incident.participants as any[]).flatMap((p) =>
                  (p.roles as any[]).map((r) => (
                    <TableRow key={r.id}>
                      <TableCell>{p.email}</TableCell>
                      <TableCell>{r.role}</TableCell>
                      <TableCell>{r.status}</TableCell>
                    </TableRow>
                  )),
                )}
              </TableBody>
            </Table>
          </Section>
          <Tasks incident={incident} reload={load} />
          <Section title="Costs">
            {cost ? (
              <Typography variant="body2">
                Response cost {money(cost.amount)} ({cost.hours.toFixed(2)} h at {money(cost.hourly_rate)}/h{cost.cost_model ? `, model ${cost.cost_model}` : ''})
              </Typography>
            ) : null}
          </Section>
          <Section title="Reports">
            {(incident.reports as any[]).map((r) => (
              <Typography key={r.id} variant="body2">
                {utc(r.created_at)} {r.type} report by {r.author_email}
              </Typography>
            ))}
          </Section>
          <Section title="Resources">
            {(incident.resources as any[]).map((r) => (
              <Typography key={r.id} variant="body2">
                {r.weblink ? <a href={r.weblink}>{r.name}</a> : r.name} ({r.resource_type})
              </Typography>
            ))}
          </Section>
          <Section title="Steps">
            {(incident.steps as any[]).map((s) => (
              <Stack key={s.id} direction="row" spacing={1} sx={{ alignItems: 'center', mb: 0.5 }}>
                <Typography variant="body2" sx={{ flex: 1 }}>
                  {s.position}. {s.name}
                </Typography>
                <TextField
                  select
                  size="small"
                  label={`Status of ${s.name}`}
                  value={s.status}
                  onChange={async (ev) => {
                    try {
                      await api(`/incident_steps/${incident.id}/${s.id}`, { method: 'PUT', json: { status: ev.target.value } });
                      await load();
                    } catch {
                      notify('Failed to update step.', { type: 'error', autoHideDuration: 0 });
                    }
                  }}
                >
                  {['Pending', 'In progress', 'Done', 'Skipped'].map((v) => (
                    <MenuItem key={v} value={v}>
                      {v}
                    </MenuItem>
                  ))}
                </TextField>
                <Button
                  size="small"
                  onClick={async () => {
                    try {
                      setSummary((await api<{ summary: string }>(`/incident_steps/${incident.id}/${s.id}/ai-summary`)).summary);
                      setDialog('summary');
                    } catch {
                      notify('Failed to get step AI summary.', { type: 'error', autoHideDuration: 0 });
                    }
                  }}
                >
                  AI summary
                </Button>
              </Stack>
            ))}
          </Section>
        </Grid>
      </Grid>

      {dialog === 'report' ? <ReportDialog incident={incident} onClose={() => setDialog(null)} submit={(type, body) => act(`/report/${type}`, { method: 'POST', json: body })} /> : null}
      {dialog === 'event' ? <EventDialog onClose={() => setDialog(null)} submit={(body) => act('/event', { method: 'POST', json: body }, 'Event added.')} /> : null}
      {dialog === 'resource' ? <ResourceDialog onClose={() => setDialog(null)} submit={(body) => act('/add-resource', { method: 'POST', json: body })} /> : null}
      <Dialog open={dialog === 'summary'} onClose={() => setDialog(null)} aria-labelledby="summary-title">
        <DialogTitle id="summary-title">Step AI summary</DialogTitle>
        <DialogContent>
          <Typography>{summary}</Typography>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setDialog(null)}>Close</Button>
        </DialogActions>
      </Dialog>
    </Box>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Card sx={{ mb: 2 }}>
      <CardHeader title={title} titleTypographyProps={{ variant: 'h6', component: 'h2' }} sx={{ pb: 0 }} />
      <CardContent>{children}</CardContent>
    </Card>
  );
}

function Tasks({ incident, reload }: { incident: Incident; reload: () => Promise<void> }) {
  const notify = useNotify();
  const [text, setText] = useState('');
  const call = async (path: string, init: RequestInit & { json?: unknown }) => {
    try {
      const answer = await api<{ message?: string; id?: number }>(path, init);
      notify(answer?.message ?? 'Task created successfully.', { type: 'success' });
      await reload();
    } catch (e) {
      notify((e as Error).message, { type: 'error', autoHideDuration: 0 });
    }
  };
  return (
    <Section title="Tasks">
      <Table size="small" aria-label="Tasks">
        <TableHead>
          <TableRow>
            <TableCell>Task</TableCell>
            <TableCell>Status</TableCell>
            <TableCell />
          </TableRow>
        </TableHead>
        <TableBody>
          {(incident.tasks as any[]).map((t) => (
            <TableRow key={t.id}>
              <TableCell>{t.description}</TableCell>
              <TableCell>{t.status}</TableCell>
              <TableCell>
                <Button size="small" onClick={() => void call(`/tasks/${t.id}/${t.status === 'Open' ? 'mark-resolved' : 'mark-open'}`, { method: 'POST' })}>
                  {t.status === 'Open' ? 'Resolve' : 'Reopen'}
                </Button>
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      <Stack direction="row" spacing={1} sx={{ mt: 1 }}>
        <TextField size="small" label="New task" value={text} onChange={(e) => setText(e.target.value)} sx={{ flex: 1 }} />
        <Button
          variant="outlined"
          disabled={!text.trim()}
          onClick={async () => {
            await call('/tasks', { method: 'POST', json: { description: text.trim(), incident_id: incident.id } });
            setText('');
          }}
        >
          Add task
        </Button>
      </Stack>
    </Section>
  );
}

function ReportDialog({ incident, onClose, submit }: { incident: Incident; onClose: () => void; submit: (type: string, body: Record<string, string>) => Promise<boolean> }) {
  const [type, setType] = useState<'tactical' | 'executive'>('tactical');
  const [values, setValues] = useState<Record<string, string>>({});
  useEffect(() => {
    // The dialog starts from the server's prefill: actions are the incident's unresolved tasks.
    void api<Record<string, Record<string, string>>>(`/iaos/${incident.id}/report/prefill`).then((p) => setValues(p[type] ?? {}));
  }, [incident.id, type]);
  const fields = type === 'tactical' ? ['conditions', 'actions', 'needs'] : ['current_status', 'overview', 'next_steps'];
  return (
    <Dialog open onClose={onClose} aria-labelledby="report-title" fullWidth>
      <DialogTitle id="report-title">Report</DialogTitle>
      <DialogContent>
        <TextField select label="Type" value={type} onChange={(e) => setType(e.target.value as never)} fullWidth sx={{ mt: 1 }}>
          <MenuItem value="tactical">Tactical</MenuItem>
          <MenuItem value="executive">Executive</MenuItem>
        </TextField>
        {fields.map((f) => (
          <TextField key={f} label={f.replace('_', ' ').replace(/^./, (c) => c.toUpperCase())} value={values[f] ?? ''} onChange={(e) => setValues({ ...values, [f]: e.target.value })} fullWidth multiline minRows={2} sx={{ mt: 2 }} />
        ))}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Cancel</Button>
        <Button variant="contained" onClick={async () => (await submit(type, Object.fromEntries(fields.map((f) => [f, values[f] ?? ''])))) && onClose()}>
          Send report
        </Button>
      </DialogActions>
    </Dialog>
  );
}

function EventDialog({ onClose, submit }: { onClose: () => void; submit: (body: Record<string, unknown>) => Promise<boolean> }) {
  const [description, setDescription] = useState('');
  const [after, setAfter] = useState(new Date().toISOString().slice(0, 19));
  return (
    <Dialog open onClose={onClose} aria-labelledby="event-title" fullWidth>
      <DialogTitle id="event-title">Add timeline event</DialogTitle>
      <DialogContent>
        <TextField label="Description" value={description} onChange={(e) => setDescription(e.target.value)} fullWidth multiline sx={{ mt: 1 }} />
        <TextField label="After (UTC)" type="datetime-local" value={after} onChange={(e) => setAfter(e.target.value)} fullWidth sx={{ mt: 2 }} slotProps={{ inputLabel: { shrink: true } }} />
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Cancel</Button>
        <Button variant="contained" disabled={!description.trim()} onClick={async () => (await submit({ description: description.trim(), after: `${after}Z` })) && onClose()}>
          Add event
        </Button>
      </DialogActions>
    </Dialog>
  );
}

function ResourceDialog({ onClose, submit }: { onClose: () => void; submit: (body: Record<string, unknown>) => Promise<boolean> }) {
  const [name, setName] = useState('');
  const [weblink, setWeblink] = useState('');
  return (
    <Dialog open onClose={onClose} aria-labelledby="resource-title" fullWidth>
      <DialogTitle id="resource-title">Add resource</DialogTitle>
      <DialogContent>
        <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} fullWidth sx={{ mt: 1 }} />
        <TextField label="Link" value={weblink} onChange={(e) => setWeblink(e.target.value)} fullWidth sx={{ mt: 2 }} />
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Cancel</Button>
        <Button variant="contained" disabled={!name.trim()} onClick={async () => (await submit({ resource_type: 'weblink', name: name.trim(), weblink: weblink.trim() || null })) && onClose()}>
          Add
        </Button>
      </DialogActions>
    </Dialog>
  );
}
