import { useEffect, useState } from 'react';
import { useParams } from 'react-router-dom';
import { Box, Button, Chip, Dialog, DialogActions, DialogContent, DialogTitle, Grid, MenuItem, Stack, Table, TableBody, TableCell, TableRow, TextField, Typography } from '@mui/material';
import { Title, useNotify, useTranslate } from 'react-admin';
import { api } from '../../providers/http.js';
import { utc } from '../generic/screens.js';
import { HandoffDialog } from './HandoffDialog.js';
import { Section, Tasks, Timeline, useAct, useRecordByName, type ApiRecord } from './parts.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- records come straight from the API */
type Incident = ApiRecord;

const money = (n: number) => n.toLocaleString('en-US', { style: 'currency', currency: 'USD', maximumSignificantDigits: 6 });

/**
 * iaos/{name}/view: what a responder works from during an incident. The header carries the
 * lifecycle actions; below it the timeline (with the spec's filter toggles), roles, tasks, costs,
 * reports, resources and steps. Every action answers with the server's message.
 */
export function IncidentView() {
  const { name = '' } = useParams();
  const notify = useNotify();
  const translate = useTranslate();
  const { record: incident, missing, load } = useRecordByName('/iaos', name, (i) => !!i.conversation_id);
  const [cost, setCost] = useState<any>(null);
  const [dialog, setDialog] = useState<null | 'report' | 'event' | 'resource' | 'summary' | 'handoff'>(null);
  const [summary, setSummary] = useState<string>('');
  const act = useAct(load);
  const incidentAct = (path: string, init?: RequestInit & { json?: unknown }, fallback?: string) => act(`/iaos/${incident!.id}${path}`, init, fallback);

  useEffect(() => {
    if (incident) void api(`/iaos/${incident.id}/costs`).then(setCost, () => undefined);
  }, [incident]);

  if (missing) return <Typography sx={{ m: 2 }}>{translate('fw.responder.not_found', { entity: 'IAO', name })}</Typography>;
  if (!incident) return <Typography sx={{ m: 2 }}>{translate('fw.responder.loading')}</Typography>;
  const status = incident.status as string;
  const t = (key: string, options?: Record<string, unknown>) => translate(`fw.responder.${key}`, options);

  return (
    <Box sx={{ p: 2 }}>
      <Title title={`${incident.name} ${incident.title}`} />
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap', mb: 2 }}>
        <Typography variant="h5" component="h1">
          {incident.name}: {incident.title}
        </Typography>
        <Chip label={status} color={status === 'Active' ? 'error' : status === 'Stable' ? 'primary' : 'default'} aria-label={t('status_is', { status })} />
        {incident.incident_type_name ? <Chip variant="outlined" label={incident.incident_type_name} /> : null}
        {incident.incident_priority_name ? <Chip variant="outlined" label={t('priority_is', { priority: incident.incident_priority_name })} /> : null}
      </Stack>
      <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap', mb: 2, gap: 1 }}>
        {!incident.is_participant ? <Button variant="contained" onClick={() => void incidentAct('/join')}>{t('join')}</Button> : null}
        {!incident.subscribed ? <Button variant="outlined" onClick={() => void incidentAct('/subscribe')}>{t('subscribe')}</Button> : null}
        {status === 'Active' ? <Button variant="outlined" onClick={() => void incidentAct('/stable')}>{t('mark_stable')}</Button> : null}
        {status !== 'Closed' ? (
          <Button variant="outlined" onClick={() => void incidentAct('/closed')}>{t('mark_closed')}</Button>
        ) : (
          <Button variant="outlined" onClick={() => void incidentAct('/active')}>{t('reopen')}</Button>
        )}
        <Button variant="outlined" onClick={() => setDialog('report')}>{t('report')}</Button>
        <Button variant="outlined" onClick={() => setDialog('event')}>{t('add_event')}</Button>
        <Button variant="outlined" onClick={() => setDialog('resource')}>{t('add_resource')}</Button>
        <Button variant="outlined" onClick={() => setDialog('handoff')}>{t('handoff')}</Button>
        <Button variant="outlined" onClick={() => void incidentAct('/postmortem/create')}>{t('create_postmortem')}</Button>
      </Stack>
      <Typography variant="body2" sx={{ mb: 2 }}>
        {t('commander_line', { commander: incident.commander_email ?? t('unassigned'), reported: utc(incident.reported_at) })}
        {incident.stable_at ? ` · ${t('stable_at', { at: utc(incident.stable_at) })}` : ''}
        {incident.closed_at ? ` · ${t('closed_at', { at: utc(incident.closed_at) })}` : ''}
        {incident.conference_url ? (
          <>
            {' · '}
            <a href={incident.conference_url} target="_blank" rel="noreferrer">
              {t('conference')}
            </a>
          </>
        ) : (
          ` · ${t('conversation_pending')}`
        )}
      </Typography>

      <Grid container spacing={2}>
        <Grid size={{ xs: 12, md: 7 }}>
          <Timeline events={incident.events} act={(path, init, fallback) => incidentAct(path, init, fallback)} />
        </Grid>
        <Grid size={{ xs: 12, md: 5 }}>
          <Section title={t('roles')}>
            <Table size="small" aria-label={t('roles')}>
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
          <Tasks tasks={incident.tasks} owner={{ incident_id: incident.id }} reload={load} />
          <Section title={t('costs')}>
            {cost ? (
              <Typography variant="body2">
                {t('cost_line', { amount: money(cost.amount), hours: cost.hours.toFixed(2), rate: money(cost.hourly_rate), model: cost.cost_model ? t('cost_model', { model: cost.cost_model }) : '' })}
              </Typography>
            ) : null}
          </Section>
          <Section title={t('reports')}>
            {(incident.reports as any[]).map((r) => (
              <Typography key={r.id} variant="body2">
                {t('report_line', { at: utc(r.created_at), type: r.type, author: r.author_email })}
              </Typography>
            ))}
          </Section>
          <Section title={t('resources')}>
            {(incident.resources as any[]).map((r) => (
              <Typography key={r.id} variant="body2">
                {r.weblink ? <a href={r.weblink}>{r.name}</a> : r.name} ({r.resource_type})
              </Typography>
            ))}
          </Section>
          <Section title={t('steps')}>
            {(incident.steps as any[]).map((s) => (
              <Stack key={s.id} direction="row" spacing={1} sx={{ alignItems: 'center', mb: 0.5 }}>
                <Typography variant="body2" sx={{ flex: 1 }}>
                  {s.position}. {s.name}
                </Typography>
                <TextField
                  select
                  size="small"
                  label={t('step_status', { step: s.name })}
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
                  {t('ai_summary')}
                </Button>
              </Stack>
            ))}
          </Section>
        </Grid>
      </Grid>

      {dialog === 'report' ? <ReportDialog incident={incident} onClose={() => setDialog(null)} submit={(type, body) => incidentAct(`/report/${type}`, { method: 'POST', json: body })} /> : null}
      {dialog === 'event' ? <EventDialog onClose={() => setDialog(null)} submit={(body) => incidentAct('/event', { method: 'POST', json: body }, t('event_added'))} /> : null}
      {dialog === 'resource' ? <ResourceDialog onClose={() => setDialog(null)} submit={(body) => incidentAct('/add-resource', { method: 'POST', json: body })} /> : null}
      {dialog === 'handoff' ? <HandoffDialog incidentId={incident.id} onClose={() => setDialog(null)} onDone={load} /> : null}
      <Dialog open={dialog === 'summary'} onClose={() => setDialog(null)} aria-labelledby="summary-title">
        <DialogTitle id="summary-title">{t('step_summary')}</DialogTitle>
        <DialogContent>
          <Typography>{summary}</Typography>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setDialog(null)}>{t('close')}</Button>
        </DialogActions>
      </Dialog>
    </Box>
  );
}

function ReportDialog({ incident, onClose, submit }: { incident: Incident; onClose: () => void; submit: (type: string, body: Record<string, string>) => Promise<boolean> }) {
  const translate = useTranslate();
  const [type, setType] = useState<'tactical' | 'executive'>('tactical');
  const [values, setValues] = useState<Record<string, string>>({});
  useEffect(() => {
    // The dialog starts from the server's prefill: actions are the incident's unresolved tasks.
    // What the user typed before it arrives is kept (the two types' fields have different names).
    void api<Record<string, Record<string, string>>>(`/iaos/${incident.id}/report/prefill`).then((p) => setValues((typed) => ({ ...(p[type] ?? {}), ...typed })));
  }, [incident.id, type]);
  const fields = type === 'tactical' ? ['conditions', 'actions', 'needs'] : ['current_status', 'overview', 'next_steps'];
  return (
    <Dialog open onClose={onClose} aria-labelledby="report-title" fullWidth>
      <DialogTitle id="report-title">{translate('fw.responder.report')}</DialogTitle>
      <DialogContent>
        <TextField select label={translate('fw.responder.report_type')} value={type} onChange={(e) => setType(e.target.value as never)} fullWidth sx={{ mt: 1 }}>
          <MenuItem value="tactical">{translate('fw.responder.tactical')}</MenuItem>
          <MenuItem value="executive">{translate('fw.responder.executive')}</MenuItem>
        </TextField>
        {fields.map((f) => (
          <TextField key={f} label={translate(`fw.responder.report_fields.${f}`)} value={values[f] ?? ''} onChange={(e) => setValues({ ...values, [f]: e.target.value })} fullWidth multiline minRows={2} sx={{ mt: 2 }} />
        ))}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{translate('ra.action.cancel')}</Button>
        <Button variant="contained" onClick={async () => (await submit(type, Object.fromEntries(fields.map((f) => [f, values[f] ?? ''])))) && onClose()}>
          {translate('fw.responder.send_report')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

function EventDialog({ onClose, submit }: { onClose: () => void; submit: (body: Record<string, unknown>) => Promise<boolean> }) {
  const translate = useTranslate();
  const [description, setDescription] = useState('');
  const [after, setAfter] = useState(new Date().toISOString().slice(0, 19));
  return (
    <Dialog open onClose={onClose} aria-labelledby="event-title" fullWidth>
      <DialogTitle id="event-title">{translate('fw.responder.add_timeline_event')}</DialogTitle>
      <DialogContent>
        <TextField label={translate('fw.responder.description')} value={description} onChange={(e) => setDescription(e.target.value)} fullWidth multiline sx={{ mt: 1 }} />
        <TextField label={translate('fw.responder.after_utc')} type="datetime-local" value={after} onChange={(e) => setAfter(e.target.value)} fullWidth sx={{ mt: 2 }} slotProps={{ inputLabel: { shrink: true } }} />
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{translate('ra.action.cancel')}</Button>
        <Button variant="contained" disabled={!description.trim()} onClick={async () => (await submit({ description: description.trim(), after: `${after}Z` })) && onClose()}>
          {translate('fw.responder.add_event')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

function ResourceDialog({ onClose, submit }: { onClose: () => void; submit: (body: Record<string, unknown>) => Promise<boolean> }) {
  const translate = useTranslate();
  const [name, setName] = useState('');
  const [weblink, setWeblink] = useState('');
  return (
    <Dialog open onClose={onClose} aria-labelledby="resource-title" fullWidth>
      <DialogTitle id="resource-title">{translate('fw.responder.add_resource')}</DialogTitle>
      <DialogContent>
        <TextField label={translate('fw.responder.name')} value={name} onChange={(e) => setName(e.target.value)} fullWidth sx={{ mt: 1 }} />
        <TextField label={translate('fw.responder.link')} value={weblink} onChange={(e) => setWeblink(e.target.value)} fullWidth sx={{ mt: 2 }} />
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{translate('ra.action.cancel')}</Button>
        <Button variant="contained" disabled={!name.trim()} onClick={async () => (await submit({ resource_type: 'weblink', name: name.trim(), weblink: weblink.trim() || null })) && onClose()}>
          {translate('ra.action.add')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
