import { useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { Box, Button, Grid, Link as MuiLink, List, ListItem, ListItemText, MenuItem, Stack, TextField, Typography } from '@mui/material';
import { Title, useBasename, useGetList, useNotify } from 'react-admin';
import { useFirewatchData } from '../core/queries.js';
import { MANUAL_CASE_STATUSES, type CaseStatus } from '../core/shapes.js';
import { utc } from '../engine/screens.js';
import {
  Comments,
  ConfirmDialog,
  RecordHeading,
  Section,
  Tasks,
  Timeline,
  useRecordAct,
  useRecordByName,
  useResponderWords,
  useSimilarIncidents,
  WorkflowRuns,
  type ApiRecord,
  type RecordAct,
} from '../incidents/parts.js';
import { RecordLinks } from '../incidents/IncidentPanels.js';

/**
 * cases/{name}/view, the entity case view: the case's timeline, participants, tasks, comments and
 * probable cause, with escalation to an incident. After escalating it polls every 5 s until the
 * new incident has its conference (spec §4).
 */
export function CaseView() {
  const { name = '' } = useParams();
  const notify = useNotify();
  const {
    record: kase,
    missing,
    load,
    live,
  } = useRecordByName('cases', name, (c) => !!c.conversation && (c.incidents as ApiRecord[]).every((i) => !!i.conference));
  const act = useRecordAct('cases', kase?.id, load);
  const dataProvider = useFirewatchData();
  const [cause, setCause] = useState<string | null>(null);
  const [escalating, setEscalating] = useState(false);
  const { t, r, translate } = useResponderWords();
  const related = useRelated(kase);

  if (missing) return <Typography sx={{ m: 2 }}>{t('not_found', { entity: 'Case', name })}</Typography>;
  if (!kase) return <Typography sx={{ m: 2 }}>{t('loading')}</Typography>;
  const incidents = kase.incidents as ApiRecord[];

  const probableCause = async () => {
    try {
      setCause((await dataProvider.view<{ probable_cause: string }>('cases', { id: kase.id, path: 'probable_cause' })).data.probable_cause);
    } catch {
      notify('Failed to get probable cause.', { type: 'error', autoHideDuration: 0 });
    }
  };

  return (
    <Box sx={{ p: 2 }}>
      <Title title={`${kase.name} ${kase.title}`} />
      <CaseHeading kase={kase} live={live} />
      <CaseActions kase={kase} act={act} onEscalate={() => setEscalating(true)} onProbableCause={() => void probableCause()} />
      <Typography variant="body2" sx={{ mb: 2 }}>
        {t('case_line', { assignee: kase.assignee_email ?? t('unassigned'), reported: utc(kase.reported_at) })}
        {kase.closed_at ? ` · ${t('closed_at', { at: utc(kase.closed_at) })}` : ''}
        {kase.conversation_id ? '' : ` · ${t('conversation_pending')}`}
      </Typography>

      <Grid container spacing={2}>
        <Grid size={{ xs: 12, md: 7 }}>
          {cause !== null ? (
            <Section title={t('probable_cause')}>
              <Typography variant="body2">{cause || t('no_probable_cause')}</Typography>
            </Section>
          ) : null}
          {kase.description ? (
            <Section title={t('description')}>
              <Typography variant="body2" sx={{ whiteSpace: 'pre-wrap' }}>
                {kase.description}
              </Typography>
            </Section>
          ) : null}
          <Timeline events={kase.events} />
          <Comments
            comments={kase.comments as ApiRecord[]}
            send={(text) => act('/comments/add', { method: 'POST', json: { text } }, undefined, 'Failed to add comment.')}
          />
        </Grid>
        <Grid size={{ xs: 12, md: 5 }}>
          <CaseIncidents incidents={incidents} />
          <CaseParticipants participants={kase.participants as string[]} act={act} />
          <Tasks tasks={kase.tasks} owner={{ case_id: kase.id }} reload={load} />
          <WorkflowRuns runs={(kase.workflow_instances ?? []) as ApiRecord[]} owner="case" />
          <RecordLinks
            title={r('related_cases')}
            records={related.cases}
            path="cases"
            empty={incidents.length ? r('no_same_incident_cases') : t('not_escalated')}
            note={(c) => c.status}
          />
          <RecordLinks
            title={r('similar')}
            records={related.similar}
            path="iaos"
            empty={incidents.length ? (related.similar ? r('no_similar') : t('loading')) : t('not_escalated')}
            note={(s) => `${s.status}, ${r('score', { score: s.score.toLocaleString('en-US', { maximumSignificantDigits: 6 }) })}`}
          />
        </Grid>
      </Grid>
      {escalating ? (
        <ConfirmDialog
          title={translate('fw.room.confirm_escalate', { name: kase.name })}
          body={translate('fw.room.confirm_escalate_body')}
          onClose={() => setEscalating(false)}
          onConfirm={() => act('/escalate', { method: 'PUT' })}
        />
      ) : null}
    </Box>
  );
}

/** Escalate (while open and not yet escalated), the probable cause, the status chosen in place, and the edit form. */
function CaseActions({ kase, act, onEscalate, onProbableCause }: { kase: ApiRecord; act: RecordAct; onEscalate: () => void; onProbableCause: () => void }) {
  const { t, translate } = useResponderWords();
  const basename = useBasename();
  const status = kase.status as CaseStatus;
  return (
    <Stack direction="row" sx={{ flexWrap: 'wrap', mb: 2, gap: 1, alignItems: 'center' }}>
      {!kase.incident_id && status !== 'Closed' ? (
        <Button variant="contained" onClick={onEscalate}>
          {t('escalate')}
        </Button>
      ) : null}
      <Button variant="outlined" onClick={onProbableCause}>
        {t('probable_cause')}
      </Button>
      <TextField
        select
        size="small"
        label={t('status')}
        value={status}
        onChange={(e) => void act('', { method: 'PUT', json: { status: e.target.value } }, translate('fw.updated', { name: 'Case' }))}
        sx={{ minWidth: 160 }}
      >
        {/* Escalated is shown (never chosen by hand): it comes only from escalation. */}
        {(MANUAL_CASE_STATUSES.includes(status) ? MANUAL_CASE_STATUSES : [...MANUAL_CASE_STATUSES, status]).map((s) => (
          <MenuItem key={s} value={s} disabled={!MANUAL_CASE_STATUSES.includes(s)}>
            {s}
          </MenuItem>
        ))}
      </TextField>
      <Button component={Link} to={`${basename}/cases/${kase.id}`}>
        {translate('ra.action.edit')}
      </Button>
    </Stack>
  );
}

/** The case's name and title, its status, classification and visibility, and whether the page is live. */
function CaseHeading({ kase, live }: { kase: ApiRecord; live: boolean }) {
  const { t, r } = useResponderWords();
  const status = kase.status as CaseStatus;
  return (
    <RecordHeading
      record={kase}
      statusColor={status === 'Closed' ? 'default' : status === 'Escalated' ? 'error' : 'primary'}
      facts={[
        kase.case_type_name && `${r('type')}: ${kase.case_type_name}`,
        kase.case_priority_name && t('priority_is', { priority: kase.case_priority_name }),
        kase.visibility === 'Restricted' && t('restricted'),
      ]}
      live={live}
    />
  );
}

/** The incident the case was escalated to, with its conference once it has one. */
function CaseIncidents({ incidents }: { incidents: ApiRecord[] }) {
  const { t } = useResponderWords();
  const basename = useBasename();
  return (
    <Section title={t('incident')}>
      {incidents.length ? (
        incidents.map((i) => (
          <Typography key={i.id} variant="body2">
            <MuiLink component={Link} to={`${basename}/iaos/${encodeURIComponent(i.name)}/view`}>
              {i.name}: {i.title}
            </MuiLink>{' '}
            ({i.status})
            {i.conference_url ? (
              <>
                {' · '}
                <MuiLink href={i.conference_url} target="_blank" rel="noreferrer">
                  {t('conference')}
                </MuiLink>
              </>
            ) : (
              ` · ${t('conversation_pending')}`
            )}
          </Typography>
        ))
      ) : (
        <Typography variant="body2">{t('not_escalated')}</Typography>
      )}
    </Section>
  );
}

/** Who takes part in the case, and a person added by e-mail. */
function CaseParticipants({ participants, act }: { participants: string[]; act: RecordAct }) {
  const { t, translate } = useResponderWords();
  const [participant, setParticipant] = useState('');
  const add = async () => {
    if (await act('', { method: 'PUT', json: { participants: [...participants, participant.trim()] } }, translate('fw.updated', { name: 'Case' })))
      setParticipant('');
  };
  return (
    <Section title={t('participants')}>
      <List dense aria-label={t('participants')}>
        {participants.map((p) => (
          <ListItem key={p} disableGutters>
            <ListItemText primary={p} />
          </ListItem>
        ))}
        {participants.length ? null : (
          <ListItem disableGutters>
            <ListItemText primary={t('no_participants')} />
          </ListItem>
        )}
      </List>
      <Stack direction="row" spacing={1}>
        <TextField
          size="small"
          type="email"
          label={t('participant_email')}
          value={participant}
          onChange={(e) => setParticipant(e.target.value)}
          sx={{ flex: 1 }}
        />
        <Button variant="outlined" disabled={!participant.trim()} onClick={() => void add()}>
          {t('add_participant')}
        </Button>
      </Stack>
    </Section>
  );
}

/**
 * What a case relates to through the incident it was escalated to: the other cases of that incident,
 * and the incidents similar to it (the incident page's own list). Read again when the case changes.
 */
function useRelated(kase: ApiRecord | null) {
  const incidentId = kase?.incident_id as number | null | undefined;
  const { data: cases = [] } = useGetList<ApiRecord>(
    'cases',
    // The case's version in the key: read again when the case changes.
    { filter: { incident_id: incidentId }, pagination: { page: 1, perPage: 50 }, meta: { version: kase?.updated_at } },
    { enabled: !!incidentId },
  );
  const similar = useSimilarIncidents(incidentId, kase?.updated_at);
  return { cases: incidentId ? cases.filter((c) => c.id !== kase?.id) : [], similar: incidentId ? similar : null };
}
