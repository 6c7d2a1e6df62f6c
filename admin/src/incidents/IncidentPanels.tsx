import { Link } from 'react-router-dom';
import { Button, Link as MuiLink, MenuItem, Stack, Table, TableBody, TableCell, TableRow, TextField, Typography } from '@mui/material';
import { useBasename, useNotify } from 'react-admin';
import { duration, money } from '../core/units.js';
import { useFirewatchData, useRecordView } from '../core/queries.js';
import { STEP_STATUSES, type IncidentStatus } from '../core/shapes.js';
import { utc } from '../engine/screens.js';
import { RecordHeading, Section, useResponderWords, useSimilarIncidents, type ApiRecord } from './parts.js';

/**
 * The panels of the incident page (iaos/{name}/view), each one section of the record: IncidentView
 * lays them out and owns the dialogs they open.
 */

/* eslint-disable @typescript-eslint/no-explicit-any -- records come straight from the API */

/** Something to read in the page's reading dialog: a sent report, or a document's text. */
export type Reading = { title: string; body: string; markdown?: boolean };

/** The review document's resource type (server/incidents: the postmortem). */
const REVIEW_DOCUMENT = 'dispatch-incident-review-document';

/** The incident's name and title, its status and its classification, and whether the page is live. */
export function IncidentHeading({ incident, live }: { incident: ApiRecord; live: boolean }) {
  const { t, r } = useResponderWords();
  const status = incident.status as IncidentStatus;
  return (
    <RecordHeading
      record={incident}
      statusColor={status === 'Active' ? 'error' : status === 'Stable' ? 'primary' : 'default'}
      statusTestId="incident-status"
      facts={[
        incident.incident_severity_name && `${r('severity')}: ${incident.incident_severity_name}`,
        incident.incident_priority_name && t('priority_is', { priority: incident.incident_priority_name }),
        incident.incident_type_name && `${r('type')}: ${incident.incident_type_name}`,
      ]}
      live={live}
    />
  );
}

function DetailRow({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <TableRow>
      <TableCell component="th" scope="row">
        {label}
      </TableCell>
      <TableCell>{children}</TableCell>
    </TableRow>
  );
}

/** Description, classification, status times, the conference and the commander. */
export function IncidentDetails({ incident }: { incident: ApiRecord }) {
  const { t, r, translate } = useResponderWords();
  return (
    <Section title={r('details')}>
      <Typography variant="body2" sx={{ whiteSpace: 'pre-wrap', mb: 1 }}>
        {incident.description || r('no_description')}
      </Typography>
      <Table size="small" aria-label={r('details')}>
        <TableBody>
          <DetailRow label={r('type')}>{incident.incident_type_name ?? r('none')}</DetailRow>
          <DetailRow label={r('severity')}>{incident.incident_severity_name ?? r('none')}</DetailRow>
          <DetailRow label={r('priority')}>{incident.incident_priority_name ?? r('none')}</DetailRow>
          <DetailRow label={t('status')}>
            {incident.status} · {r('status_times', { reported: utc(incident.reported_at) })}
            {incident.stable_at ? ` · ${t('stable_at', { at: utc(incident.stable_at) })}` : ''}
            {incident.closed_at ? ` · ${t('closed_at', { at: utc(incident.closed_at) })}` : ''}
          </DetailRow>
          <DetailRow label={translate('fw.responder.conference')}>
            {incident.conference_url ? (
              <>
                <a href={incident.conference_url} target="_blank" rel="noreferrer">
                  {translate('fw.responder.conference')}
                </a>{' '}
                ({incident.conference_url})
              </>
            ) : (
              t('conversation_pending')
            )}
          </DetailRow>
          <DetailRow label={translate('fw.responder.roles')}>
            {t('commander_line', { commander: incident.commander_email ?? t('unassigned'), reported: utc(incident.reported_at) })}
          </DetailRow>
        </TableBody>
      </Table>
    </Section>
  );
}

/** What the incident has cost so far (read with the record: participants' activity changes it). */
export function IncidentCosts({ incidentId }: { incidentId: number }) {
  const { t } = useResponderWords();
  const { data: cost = null } = useRecordView<any>('iaos', incidentId, 'costs');
  return (
    <Section title={t('costs')}>
      {cost ? (
        <Typography variant="body2">
          {t('cost_line', {
            amount: money(cost.amount),
            hours: duration(cost.hours),
            rate: money(cost.hourly_rate),
            model: cost.cost_model ? t('cost_model', { model: cost.cost_model }) : '',
          })}
        </Typography>
      ) : null}
    </Section>
  );
}

/** A sent report as its readers got it: each section under its heading. */
function reportText(details: Record<string, string>, translate: (k: string) => string) {
  return Object.entries(details)
    .filter(([k]) => k !== 'type')
    .map(([k, v]) => `${translate(`fw.responder.report_fields.${k}`)}\n${v || '—'}`)
    .join('\n\n');
}

/** The reports sent, each opened in the reading dialog. */
export function IncidentReports({ reports, onRead }: { reports: any[]; onRead: (reading: Reading) => void }) {
  const { t, r, translate } = useResponderWords();
  return (
    <Section title={t('reports')}>
      {reports.length ? null : <Typography variant="body2">{r('no_reports')}</Typography>}
      {reports.map((rep) => (
        <Typography key={rep.id} variant="body2">
          <MuiLink
            component="button"
            aria-label={r('report_open', { type: rep.type, at: utc(rep.created_at) })}
            onClick={() =>
              onRead({
                title: r('report_title', {
                  type: rep.type === 'tactical' ? t('tactical') : t('executive'),
                  at: utc(rep.created_at),
                  author: rep.author_email ?? 'API key',
                }),
                body: reportText(rep.details ?? {}, translate),
              })
            }
          >
            {t('report_line', { at: utc(rep.created_at), type: rep.type, author: rep.author_email })}
          </MuiLink>
        </Typography>
      ))}
    </Section>
  );
}

/** One resource: the review opens on its document page, a link goes out, a text opens in the reading dialog. */
function ResourceLink({ resource: res, onRead }: { resource: any; onRead: (reading: Reading) => void }) {
  const { r } = useResponderWords();
  const basename = useBasename();
  if (res.resource_type === REVIEW_DOCUMENT && /^\/documents\/\d+$/.test(res.weblink ?? ''))
    // The review is a document of its own: read, edited and exported on its page.
    return (
      <MuiLink component={Link} to={`${basename}${res.weblink}/read`}>
        {res.name}
      </MuiLink>
    );
  if (res.weblink) return <a href={res.weblink}>{res.name}</a>;
  if (res.content)
    return (
      <MuiLink
        component="button"
        aria-label={r('open_document', { name: res.name })}
        onClick={() => onRead({ title: res.name, body: res.content, markdown: true })}
      >
        {res.name}
      </MuiLink>
    );
  return res.name;
}

export function IncidentResources({ resources, onRead }: { resources: any[]; onRead: (reading: Reading) => void }) {
  const { t, r } = useResponderWords();
  return (
    <Section title={t('resources')}>
      {resources.length ? null : <Typography variant="body2">{r('no_resources')}</Typography>}
      {resources.map((res) => (
        <Typography key={res.id} variant="body2">
          <ResourceLink resource={res} onRead={onRead} /> ({res.resource_type === REVIEW_DOCUMENT ? r('document') : res.resource_type})
        </Typography>
      ))}
    </Section>
  );
}

/** Other records listed by name and title, each a link to its page, or the words for none. */
export function RecordLinks({
  title,
  records,
  path,
  empty,
  note,
}: {
  title: string;
  records: any[] | null | undefined;
  path: string;
  empty: string;
  note: (record: any) => string;
}) {
  const basename = useBasename();
  return (
    <Section title={title}>
      {records?.length ? (
        records.map((c) => (
          <Typography key={c.id} variant="body2">
            <MuiLink component={Link} to={`${basename}/${path}/${encodeURIComponent(c.name)}/view`}>
              {c.name}: {c.title}
            </MuiLink>{' '}
            ({note(c)})
          </Typography>
        ))
      ) : (
        <Typography variant="body2">{empty}</Typography>
      )}
    </Section>
  );
}

export function RelatedCases({ cases }: { cases: any[] }) {
  const { r } = useResponderWords();
  return <RecordLinks title={r('related_cases')} records={cases} path="cases" empty={r('no_related_cases')} note={(c) => c.status} />;
}

export function SimilarIncidents({ incidentId }: { incidentId: number }) {
  const { r, translate } = useResponderWords();
  const similar = useSimilarIncidents(incidentId);
  return (
    <RecordLinks
      title={r('similar')}
      records={similar}
      path="iaos"
      empty={similar ? r('no_similar') : translate('fw.responder.loading')}
      note={(s) => `${s.status}, ${r('score', { score: Number(s.score).toLocaleString('en-US', { maximumSignificantDigits: 3 }) })}`}
    />
  );
}

/** The incident's steps: each one's status chosen in place, and its AI summary on request. */
export function IncidentSteps({ incident, reload, onSummary }: { incident: ApiRecord; reload: () => Promise<unknown>; onSummary: (summary: string) => void }) {
  const { t, r } = useResponderWords();
  const notify = useNotify();
  const dataProvider = useFirewatchData();
  const setStatus = async (step: any, status: string) => {
    try {
      await dataProvider.action('incident_steps', { id: incident.id, path: String(step.id), method: 'PUT', data: { status } });
      await reload();
    } catch {
      notify('Failed to update step.', { type: 'error', autoHideDuration: 0 });
    }
  };
  const summarize = async (step: any) => {
    try {
      onSummary((await dataProvider.view<{ summary: string }>('incident_steps', { id: incident.id, path: `${step.id}/ai-summary` })).data.summary);
    } catch {
      notify('Failed to get step AI summary.', { type: 'error', autoHideDuration: 0 });
    }
  };
  return (
    <Section title={t('steps')}>
      {(incident.steps as any[]).map((s) => (
        // The step's name is its status field's label: one line each, however narrow the column.
        <Stack key={s.id} direction="row" spacing={1} sx={{ alignItems: 'center', mb: 1 }}>
          <TextField
            select
            size="small"
            sx={{ flex: 1 }}
            label={`${s.position}. ${s.name}`}
            value={s.status}
            onChange={(ev) => void setStatus(s, ev.target.value)}
          >
            {STEP_STATUSES.map((v) => (
              <MenuItem key={v} value={v}>
                {v}
              </MenuItem>
            ))}
          </TextField>
          <Button size="small" aria-label={r('ai_summary_of', { step: s.name })} onClick={() => void summarize(s)}>
            {t('ai_summary')}
          </Button>
        </Stack>
      ))}
    </Section>
  );
}
