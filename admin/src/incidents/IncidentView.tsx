import { useEffect, useMemo, useState } from 'react';
import { useParams } from 'react-router-dom';
import {
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Grid,
  MenuItem,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableRow,
  TextField,
  Typography,
} from '@mui/material';
import { Title, useGetList, useNotify, useTranslate, useUpdate } from 'react-admin';
import { useFirewatchData } from '../core/queries.js';
import type { IncidentStatus } from '../core/shapes.js';
import { Markdown } from '../documents/markdown.js';
import { ConversationPanel } from './ConversationPanel.js';
import { HandoffDialog } from './HandoffDialog.js';
import {
  IncidentCosts,
  IncidentDetails,
  IncidentHeading,
  IncidentReports,
  IncidentResources,
  IncidentSteps,
  RelatedCases,
  SimilarIncidents,
  type Reading,
} from './IncidentPanels.js';
import { OutsidePanel } from './OutsidePanel.js';
import { RunWorkflowDialog } from '../workflows/screens.js';
import {
  Comments,
  ConfirmDialog,
  EventDialog,
  Section,
  Tasks,
  Timeline,
  useRecordAct,
  useRecordByName,
  useResponderWords,
  WorkflowRuns,
  type ApiRecord,
  type RecordAct,
} from './parts.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- records come straight from the API */
type Incident = ApiRecord;

/** The dialogs the incident page opens, one at a time. */
type IncidentDialog = null | 'report' | 'event' | 'resource' | 'summary' | 'handoff' | 'details' | 'postmortem' | 'workflow';

/**
 * iaos/{name}/view: what a responder works from during an incident. The header carries the
 * lifecycle actions; below it the timeline (with the spec's filter toggles), roles, tasks, costs,
 * reports, resources and steps. Every action answers with the server's message.
 */
export function IncidentView() {
  const { name = '' } = useParams();
  const { t, r } = useResponderWords();
  const { record: incident, missing, load, live } = useRecordByName('iaos', name, (i) => !!i.conversation);
  const [dialog, setDialog] = useState<IncidentDialog>(null);
  const [confirmStatus, setConfirmStatus] = useState<null | IncidentStatus>(null);
  const [reading, setReading] = useState<Reading | null>(null);
  const [summary, setSummary] = useState<string>('');
  const incidentAct = useRecordAct('iaos', incident?.id, load);

  if (missing) return <Typography sx={{ m: 2 }}>{t('not_found', { entity: 'Incident', name })}</Typography>;
  if (!incident) return <Typography sx={{ m: 2 }}>{t('loading')}</Typography>;
  return (
    <Box sx={{ p: 2 }}>
      <Title title={`${incident.name} ${incident.title}`} />
      <IncidentHeading incident={incident} live={live} />
      <IncidentActions incident={incident} act={incidentAct} open={setDialog} confirm={setConfirmStatus} />
      <Typography variant="caption" component="p" sx={{ mb: 2 }}>
        {r('status_right')}
      </Typography>

      <Grid container spacing={2}>
        <Grid size={{ xs: 12, md: 7 }}>
          <IncidentDetails incident={incident} />
          {/* The outside panel names whole paths (/iaos/{id}/statuspage). */}
          <OutsidePanel incident={incident} act={(path, init) => incidentAct(path.slice(`/iaos/${incident.id}`.length), init as never)} />
          <Timeline events={incident.events} act={incidentAct} />
          <ConversationPanel incidentId={incident.id} />
          <Comments comments={(incident.comments ?? []) as any[]} send={(text) => incidentAct('/comments/add', { method: 'POST', json: { text } })} />
        </Grid>
        <Grid size={{ xs: 12, md: 5 }}>
          <Roles incident={incident} act={incidentAct} />
          <Tasks tasks={incident.tasks} owner={{ incident_id: incident.id }} reload={load} />
          <WorkflowRuns
            runs={(incident.workflow_instances ?? []) as any[]}
            owner="incident"
            action={
              <Button variant="outlined" size="small" sx={{ mt: 1 }} onClick={() => setDialog('workflow')}>
                {r('run_workflow')}
              </Button>
            }
          />
          <IncidentCosts incidentId={incident.id} />
          <IncidentReports reports={incident.reports as any[]} onRead={setReading} />
          <IncidentResources resources={incident.resources as any[]} onRead={setReading} />
          <RelatedCases cases={(incident.cases ?? []) as any[]} />
          <SimilarIncidents incidentId={incident.id} />
          <IncidentSteps
            incident={incident}
            reload={load}
            onSummary={(text) => {
              setSummary(text);
              setDialog('summary');
            }}
          />
        </Grid>
      </Grid>

      {confirmStatus ? (
        <ConfirmDialog
          title={r(`confirm_status.${confirmStatus}`, { name: incident.name })}
          body={
            <>
              {r(`confirm_status_body.${confirmStatus}`)}
              <br />
              {r('status_right')}
            </>
          }
          onClose={() => setConfirmStatus(null)}
          onConfirm={() => incidentAct(`/${confirmStatus === 'Stable' ? 'stable' : confirmStatus === 'Closed' ? 'closed' : 'active'}`)}
        />
      ) : null}
      <IncidentDialogs incident={incident} dialog={dialog} onClose={() => setDialog(null)} act={incidentAct} reload={load} summary={summary} />
      <ReadingDialog reading={reading} onClose={() => setReading(null)} />
    </Box>
  );
}

/** The lifecycle and record actions above the page: join, subscribe, status changes (confirmed), and the dialogs. */
function IncidentActions({
  incident,
  act,
  open,
  confirm,
}: {
  incident: Incident;
  act: RecordAct;
  open: (dialog: IncidentDialog) => void;
  confirm: (status: IncidentStatus) => void;
}) {
  const { t, r } = useResponderWords();
  const status = incident.status as IncidentStatus;
  const opens: [IncidentDialog, string][] = [
    ['details', r('edit_details')],
    ['report', t('report')],
    ['event', t('add_event')],
    ['resource', t('add_resource')],
    ['handoff', t('handoff')],
    ['postmortem', t('create_postmortem')],
  ];
  return (
    <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap', mb: 1, gap: 1 }}>
      {!incident.is_participant ? (
        <Button variant="contained" onClick={() => void act('/join')}>
          {t('join')}
        </Button>
      ) : null}
      {!incident.subscribed ? (
        <Button variant="outlined" onClick={() => void act('/subscribe')}>
          {t('subscribe')}
        </Button>
      ) : (
        <Button variant="outlined" onClick={() => void act('/unsubscribe')}>
          {r('unsubscribe')}
        </Button>
      )}
      {status === 'Active' ? (
        <Button variant="outlined" onClick={() => confirm('Stable')}>
          {t('mark_stable')}
        </Button>
      ) : null}
      {status !== 'Closed' ? (
        <Button variant="outlined" onClick={() => confirm('Closed')}>
          {t('mark_closed')}
        </Button>
      ) : (
        <Button variant="outlined" onClick={() => confirm('Active')}>
          {t('reopen')}
        </Button>
      )}
      {opens.map(([dialog, label]) => (
        <Button key={dialog} variant="outlined" onClick={() => open(dialog)}>
          {label}
        </Button>
      ))}
    </Stack>
  );
}

/** The one dialog open on the incident page, if any. */
function IncidentDialogs({
  incident,
  dialog,
  onClose,
  act,
  reload,
  summary,
}: {
  incident: Incident;
  dialog: IncidentDialog;
  onClose: () => void;
  act: RecordAct;
  reload: () => Promise<unknown>;
  summary: string;
}) {
  const { t, r, translate } = useResponderWords();
  switch (dialog) {
    case 'postmortem':
      return (
        <ConfirmDialog
          title={r('confirm_postmortem', { name: incident.name })}
          body={r('confirm_postmortem_body')}
          onClose={onClose}
          onConfirm={() => act('/postmortem/create')}
        />
      );
    case 'details':
      return <DetailsDialog incident={incident} onClose={onClose} reload={reload} />;
    case 'report':
      return <ReportDialog incident={incident} onClose={onClose} submit={(type, body) => act(`/report/${type}`, { method: 'POST', json: body })} />;
    case 'event':
      return (
        <EventDialog
          title={translate('fw.responder.add_timeline_event')}
          timeLabel={translate('fw.room.event_time')}
          timeKey="after"
          saveLabel={translate('fw.responder.add_event')}
          onClose={onClose}
          submit={(body) => act('/event', { method: 'POST', json: body }, t('event_added'))}
        />
      );
    case 'resource':
      return <ResourceDialog onClose={onClose} submit={(body) => act('/add-resource', { method: 'POST', json: body }, undefined, t('add_resource_failed'))} />;
    case 'workflow':
      return <RunFromIncident id={incident.id} name={incident.name} title={incident.title} onClose={onClose} />;
    case 'handoff':
      return <HandoffDialog incidentId={incident.id} onClose={onClose} onDone={reload} />;
    case 'summary':
      return (
        <Dialog open onClose={onClose} aria-labelledby="summary-title">
          <DialogTitle id="summary-title">{t('step_summary')}</DialogTitle>
          <DialogContent>
            <Typography>{summary}</Typography>
          </DialogContent>
          <DialogActions>
            <Button onClick={onClose}>{t('close')}</Button>
          </DialogActions>
        </Dialog>
      );
    default:
      return null;
  }
}

/** A report or a document's text, read in place. */
function ReadingDialog({ reading, onClose }: { reading: Reading | null; onClose: () => void }) {
  const { t } = useResponderWords();
  return (
    <Dialog open={reading !== null} onClose={onClose} aria-labelledby="reading-title" fullWidth maxWidth="md">
      <DialogTitle id="reading-title">{reading?.title}</DialogTitle>
      <DialogContent>
        {reading?.markdown ? (
          <Markdown text={reading.body} />
        ) : (
          <Typography component="div" variant="body2" sx={{ whiteSpace: 'pre-wrap' }}>
            {reading?.body}
          </Typography>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('close')}</Button>
      </DialogActions>
    </Dialog>
  );
}

/**
 * The run dialog, on this incident. Its target is kept the same object while the page reloads the
 * record (every live change does): the dialog starts over when its target changes, and a new object
 * each time sent it back from following the run to its empty form.
 */
function RunFromIncident({ id, name, title, onClose }: { id: number; name: string; title: string; onClose: () => void }) {
  const incident = useMemo(() => ({ id, name, title }), [id, name, title]);
  return <RunWorkflowDialog open onClose={onClose} incident={incident} />;
}

/** The incident's roles as spec §3 names them (server/incidents/tables.ts INCIDENT_ROLES). */
const ROLES = ['commander', 'reporter', 'liaison', 'scribe', 'participant', 'observer'] as const;

/**
 * Who holds which role, and changes to it: a role given to a person (a new commander or reporter
 * replaces the previous one, as the server does), a role taken back after a confirmation. Renounced
 * roles stay listed as Inactive: the record of who held them.
 */
function Roles({ incident, act }: { incident: Incident; act: RecordAct }) {
  const translate = useTranslate();
  const t = (key: string, options?: Record<string, unknown>) => translate(`fw.room.${key}`, options);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<(typeof ROLES)[number]>('commander');
  const [renouncing, setRenouncing] = useState<{ id: number; email: string; role: string } | null>(null);
  const rows = (incident.participants as any[]).flatMap((p) => (p.roles as any[]).map((r) => ({ ...r, email: p.email as string })));
  const valid = /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email.trim());
  return (
    <Section title={translate('fw.responder.roles')}>
      {/* Long addresses wrap (and only they) inside the card instead of pushing the Remove buttons past its edge. */}
      <Table
        size="small"
        aria-label={translate('fw.responder.roles')}
        sx={{ '& td': { whiteSpace: 'nowrap' }, '& td:first-of-type': { whiteSpace: 'normal', overflowWrap: 'anywhere' } }}
      >
        <TableBody>
          {rows.map((r) => (
            <TableRow key={r.id}>
              <TableCell id={`role-${r.id}-email`}>{r.email}</TableCell>
              {/* The server's word for the role, as the timeline says it ("assigned the commander role"). */}
              <TableCell id={`role-${r.id}-role`}>{r.role}</TableCell>
              <TableCell>{r.status}</TableCell>
              <TableCell padding="none" align="right">
                {r.status === 'Active' ? (
                  // Named "Remove", described by its row: a name holding the role ("reporter") would also answer to "Report".
                  <Button
                    size="small"
                    onClick={() => setRenouncing({ id: r.id, email: r.email, role: r.role })}
                    aria-describedby={`role-${r.id}-email role-${r.id}-role`}
                  >
                    {t('role_remove_short')}
                  </Button>
                ) : null}
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      <Stack
        component="form"
        direction="row"
        sx={{ mt: 2, alignItems: 'flex-start', flexWrap: 'wrap', gap: 1 }}
        aria-label={t('role_assign_form')}
        onSubmit={async (e) => {
          e.preventDefault();
          if (valid && (await act('/roles', { method: 'POST', json: { email: email.trim(), role } }))) setEmail('');
        }}
      >
        <TextField size="small" label={t('role_email')} type="email" value={email} onChange={(e) => setEmail(e.target.value)} sx={{ flex: '1 1 200px' }} />
        <TextField size="small" select label={t('role')} value={role} onChange={(e) => setRole(e.target.value as never)} sx={{ flex: '0 0 140px' }}>
          {ROLES.map((r) => (
            <MenuItem key={r} value={r}>
              {t(`role_names.${r}`)}
            </MenuItem>
          ))}
        </TextField>
        <Button type="submit" variant="outlined" disabled={!valid}>
          {t('role_assign')}
        </Button>
      </Stack>
      {renouncing ? (
        <ConfirmDialog
          title={t('role_remove_title', { role: renouncing.role, email: renouncing.email })}
          body={t('role_remove_body')}
          onClose={() => setRenouncing(null)}
          onConfirm={() => act(`/roles/${renouncing.id}/renounce`)}
        />
      ) : null}
    </Section>
  );
}

/**
 * Title, description, type, severity and priority, saved with If-Match: the version this dialog
 * opened from. If someone changed the incident meanwhile the server refuses (409) and the page
 * shows their version instead of overwriting it.
 */
function DetailsDialog({ incident, onClose, reload }: { incident: Incident; onClose: () => void; reload: () => Promise<unknown> }) {
  const translate = useTranslate();
  const notify = useNotify();
  const r = (key: string) => translate(`fw.room.${key}`);
  const [values, setValues] = useState<Record<string, any>>({
    title: incident.title ?? '',
    description: incident.description ?? '',
    incident_type_id: incident.incident_type_id ?? '',
    incident_severity_id: incident.incident_severity_id ?? '',
    incident_priority_id: incident.incident_priority_id ?? '',
  });
  const [version] = useState<string>(incident.updated_at);
  const choices = { pagination: { page: 1, perPage: 100 } };
  const options: Record<string, { id: number; name: string }[] | undefined> = {
    incident_type_id: useGetList('incident_types', choices).data,
    incident_severity_id: useGetList('incident_severities', choices).data,
    incident_priority_id: useGetList('incident_priorities', choices).data,
  };
  const [update] = useUpdate();
  const save = async () => {
    try {
      const data = {
        ...values,
        description: values.description || null,
        ...Object.fromEntries(['incident_type_id', 'incident_severity_id', 'incident_priority_id'].map((k) => [k, values[k] === '' ? null : values[k]])),
      };
      await update('iaos', { id: incident.id, data, previousData: incident, meta: { version } }, { mutationMode: 'pessimistic', returnPromise: true });
      notify(r('details_saved'), { type: 'success' });
      await reload();
      onClose();
    } catch (e) {
      const stale = (e as { status?: number }).status === 409;
      notify(stale ? r('stale') : (e as Error).message, { type: 'error', autoHideDuration: 0 });
      await reload().catch(() => undefined);
      if (stale) onClose();
    }
  };
  return (
    <Dialog open onClose={onClose} aria-labelledby="details-title" fullWidth>
      <DialogTitle id="details-title">{r('edit_details')}</DialogTitle>
      <DialogContent>
        <TextField
          label={translate('fw.responder.title')}
          value={values.title}
          onChange={(e) => setValues({ ...values, title: e.target.value })}
          fullWidth
          sx={{ mt: 1 }}
          required
        />
        <TextField
          label={translate('fw.responder.description')}
          value={values.description}
          onChange={(e) => setValues({ ...values, description: e.target.value })}
          fullWidth
          multiline
          minRows={3}
          sx={{ mt: 2 }}
        />
        {(['incident_type_id', 'incident_severity_id', 'incident_priority_id'] as const).map((key) => (
          <TextField
            key={key}
            select
            label={r(key === 'incident_type_id' ? 'type' : key === 'incident_severity_id' ? 'severity' : 'priority')}
            value={values[key]}
            onChange={(e) => setValues({ ...values, [key]: e.target.value })}
            fullWidth
            sx={{ mt: 2 }}
          >
            <MenuItem value="">{r('none')}</MenuItem>
            {(options[key] ?? []).map((o) => (
              <MenuItem key={o.id} value={o.id}>
                {o.name}
              </MenuItem>
            ))}
          </TextField>
        ))}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{r('cancel')}</Button>
        <Button variant="contained" disabled={!String(values.title).trim()} onClick={() => void save()}>
          {r('save')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

function ReportDialog({
  incident,
  onClose,
  submit,
}: {
  incident: Incident;
  onClose: () => void;
  submit: (type: string, body: Record<string, string>) => Promise<boolean>;
}) {
  const translate = useTranslate();
  const dataProvider = useFirewatchData();
  const [type, setType] = useState<'tactical' | 'executive'>('tactical');
  const [values, setValues] = useState<Record<string, string>>({});
  useEffect(() => {
    // The dialog starts from the server's prefill: actions are the incident's unresolved tasks.
    // What the user typed before it arrives is kept (the two types' fields have different names).
    void dataProvider
      .view<Record<string, Record<string, string>>>('iaos', { id: incident.id, path: 'report/prefill' })
      .then(({ data: p }) => setValues((typed) => ({ ...(p[type] ?? {}), ...typed })));
  }, [incident.id, type, dataProvider]);
  const fields = type === 'tactical' ? ['conditions', 'actions', 'needs'] : ['current_status', 'overview', 'next_steps'];
  return (
    <Dialog open onClose={onClose} aria-labelledby="report-title" fullWidth>
      <DialogTitle id="report-title">{translate('fw.responder.report')}</DialogTitle>
      <DialogContent>
        <TextField
          select
          label={translate('fw.responder.report_type')}
          value={type}
          onChange={(e) => setType(e.target.value as never)}
          fullWidth
          sx={{ mt: 1 }}
        >
          <MenuItem value="tactical">{translate('fw.responder.tactical')}</MenuItem>
          <MenuItem value="executive">{translate('fw.responder.executive')}</MenuItem>
        </TextField>
        {fields.map((f) => (
          <TextField
            key={f}
            label={translate(`fw.responder.report_fields.${f}`)}
            value={values[f] ?? ''}
            onChange={(e) => setValues({ ...values, [f]: e.target.value })}
            fullWidth
            multiline
            minRows={2}
            sx={{ mt: 2 }}
          />
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
        <Button
          variant="contained"
          disabled={!name.trim()}
          onClick={async () => (await submit({ resource_type: 'weblink', name: name.trim(), weblink: weblink.trim() || null })) && onClose()}
        >
          {translate('ra.action.add')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
