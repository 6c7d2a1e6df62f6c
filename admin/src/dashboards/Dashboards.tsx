import { useMemo, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router-dom';
import { Alert, Box, Button, Card, CardContent, Grid, Stack, Tab, Tabs, TextField, Typography } from '@mui/material';
import { Title, useBasename, useGetList, useNotify, useTranslate } from 'react-admin';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { useFirewatchData } from '../core/queries.js';
import { utc } from '../engine/screens.js';
import { duration, money } from '../core/units.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- figures come straight from the API */
type Summary = Record<string, any>;

const KINDS = ['iaos', 'cases', 'tasks', 'data', 'people', 'feedback'] as const;
type Kind = (typeof KINDS)[number];
const COLORS = ['#1565C0', '#C62828', '#EF6C00', '#2E7D32', '#6A1B9A', '#00838F', '#4E342E', '#546E7A'];
/** Statuses by meaning, not legend order: ongoing ones warm, closed ones calm. */
const STATUS_COLORS: Record<string, string> = {
  Active: '#C62828',
  New: '#1565C0',
  Triage: '#6A1B9A',
  Escalated: '#AD1457',
  Stable: '#EF6C00',
  Closed: '#2E7D32',
  Open: '#1565C0',
  Resolved: '#2E7D32',
};

type Named = { id: number; name: string; color?: string | null };
const everyOne = { pagination: { page: 1, perPage: 200 }, sort: { field: 'id', order: 'ASC' } } as const;

/** The colours people gave incident and case priorities and types (Critical #B71C1C), by name. */
function useConfiguredColors() {
  const lists = [
    useGetList<Named>('incident_priorities', everyOne).data,
    useGetList<Named>('incident_types', everyOne).data,
    useGetList<Named>('case_priorities', everyOne).data,
    useGetList<Named>('case_types', everyOne).data,
  ];
  return useMemo(
    () =>
      Object.fromEntries(
        lists
          .flatMap((l) => l ?? [])
          .filter((x) => x.color)
          .map((x) => [x.name, x.color!]),
      ),
    lists,
  );
}

/** Rows of {month, key, count} → one object per month with a count per key, for a stacked bar chart. */
function pivot(rows: { month: string; count: number }[], by: (r: any) => string, order?: readonly string[]) {
  const months = new Map<string, Record<string, number | string>>();
  const keys = new Set<string>();
  for (const r of rows) {
    const k = by(r) ?? 'None';
    keys.add(k);
    const m = months.get(r.month) ?? { month: r.month };
    m[k] = ((m[k] as number | undefined) ?? 0) + r.count;
    months.set(r.month, m);
  }
  const rank = (k: string) => (order?.includes(k) ? order.indexOf(k) : Number.MAX_SAFE_INTEGER);
  return { data: [...months.values()], keys: [...keys].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)) };
}

/** Counts per month, stacked by `by`; the same figures are spelled out for screen readers. */
function Chart({
  title,
  rows,
  by,
  order,
  colors = STATUS_COLORS,
}: {
  title: string;
  rows: any[];
  by: (r: any) => string;
  order?: readonly string[];
  colors?: Record<string, string>;
}) {
  const translate = useTranslate();
  const { data, keys } = useMemo(() => pivot(rows, by, order), [rows, by, order]);
  return (
    <Card>
      <CardContent>
        <Typography variant="h6" component="h2">
          {title}
        </Typography>
        {data.length ? (
          <Box
            sx={{ height: 260 }}
            role="img"
            aria-label={`${title}: ${data.map((d) => `${d.month} ${keys.map((k) => `${k} ${d[k] ?? 0}`).join(', ')}`).join('; ')}`}
          >
            <ResponsiveContainer width="100%" height="100%">
              <BarChart data={data}>
                <CartesianGrid strokeDasharray="3 3" />
                <XAxis dataKey="month" />
                <YAxis allowDecimals={false} />
                <Tooltip />
                <Legend />
                {keys.map((k, i) => (
                  <Bar key={k} dataKey={k} stackId="a" fill={colors[k] ?? COLORS[i % COLORS.length]} />
                ))}
              </BarChart>
            </ResponsiveContainer>
          </Box>
        ) : (
          <Typography variant="body2">{translate('fw.dashboards.nothing')}</Typography>
        )}
      </CardContent>
    </Card>
  );
}

function Figure({ label, value }: { label: string; value: string | number | null | undefined }) {
  return (
    <Card sx={{ height: '100%' }}>
      <CardContent>
        <Typography variant="body2">{label}</Typography>
        <Typography variant="h5" component="p" aria-label={label}>
          {value === null || value === undefined ? '–' : value}
        </Typography>
      </CardContent>
    </Card>
  );
}

/** A titled list of lines, with a sentence when it is empty. */
function Lines({ title, lines }: { title: string; lines: string[] }) {
  const translate = useTranslate();
  return (
    <Card sx={{ height: '100%' }}>
      <CardContent>
        <Typography variant="h6" component="h2">
          {title}
        </Typography>
        {lines.length ? (
          <Box component="ul" aria-label={title} sx={{ pl: 2, my: 1 }}>
            {lines.map((l, i) => (
              <Typography key={i} component="li" variant="body2">
                {l}
              </Typography>
            ))}
          </Box>
        ) : (
          <Typography variant="body2">{translate('fw.dashboards.nothing')}</Typography>
        )}
      </CardContent>
    </Card>
  );
}

const number = (n: number | null | undefined, options?: Intl.NumberFormatOptions) =>
  n === null || n === undefined ? null : n.toLocaleString('en-US', { maximumSignificantDigits: 6, ...options });
const bytes = (n: number | null | undefined) => {
  if (n === null || n === undefined) return null;
  const units = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'];
  const i = n > 0 ? Math.min(units.length - 1, Math.floor(Math.log10(n) / 3)) : 0;
  return `${number(n / 1000 ** i, { maximumSignificantDigits: 3 })} ${units[i]}`;
};

const FEEDBACK_RATINGS = ['Very satisfied', 'Somewhat satisfied', 'Neither satisfied nor dissatisfied', 'Somewhat dissatisfied', 'Very dissatisfied'];
const EFFORT_RATINGS = ['No effort', 'Little effort', 'Moderate effort', 'Lots of effort', 'Very high effort'];
const cell = { xs: 12, md: 3 } as const;
const half = { xs: 12, md: 6 } as const;
type GridSize = typeof cell | { xs: number; md: number };

/** A row of figures, each in its grid cell. */
function FigureCells({ figures, size = cell }: { figures: [label: string, value: string | number | null | undefined][]; size?: GridSize }) {
  return figures.map(([label, value]) => (
    <Grid key={label} size={size}>
      <Figure label={label} value={value} />
    </Grid>
  ));
}

/** The dashboards' own translations (`fw.dashboards.*`). */
type T = (key: string, options?: Record<string, unknown>) => string;

/** Incidents: counts, times to stable and close, cost, and by status, type and priority. */
function IncidentFigures({ s, t, configured }: { s: Summary; t: T; configured: Record<string, string> }) {
  return (
    <Grid container spacing={2}>
      <FigureCells
        figures={[
          [t('incidents'), s.incidents.total],
          [t('time_to_stable'), hours(s.incidents.hours_to_stable)],
          [t('time_to_close'), hours(s.incidents.hours_to_close)],
          [t('cost'), money(s.incidents.cost)],
        ]}
      />
      <Grid size={{ xs: 12, md: 4 }}>
        <Chart title={t('incidents_by_status')} rows={s.incidents.by_month} by={(r) => r.status} />
      </Grid>
      <Grid size={{ xs: 12, md: 4 }}>
        <Chart title={t('incidents_by_type')} rows={s.incidents.by_month} by={(r) => r.type} colors={configured} />
      </Grid>
      <Grid size={{ xs: 12, md: 4 }}>
        <Chart title={t('incidents_by_priority')} rows={s.incidents.by_month} by={(r) => r.priority} colors={configured} />
      </Grid>
    </Grid>
  );
}

/** Cases: counts, times to triage and close, and by status and type. */
function CaseFigures({ s, t, configured }: { s: Summary; t: T; configured: Record<string, string> }) {
  return (
    <Grid container spacing={2}>
      <FigureCells
        size={{ xs: 12, md: 4 }}
        figures={[
          [t('cases'), s.cases.total],
          [t('time_to_triage'), hours(s.cases.hours_to_triage)],
          [t('time_to_close'), hours(s.cases.hours_to_close)],
        ]}
      />
      <Grid size={half}>
        <Chart title={t('cases_by_status')} rows={s.cases.by_month} by={(r) => r.status} />
      </Grid>
      <Grid size={half}>
        <Chart title={t('cases_by_type')} rows={s.cases.by_month} by={(r) => r.type} colors={configured} />
      </Grid>
    </Grid>
  );
}

/** Tasks: counts, open and overdue ones, time to resolve, and by status and priority. */
function TaskFigures({ s, t, configured }: { s: Summary; t: T; configured: Record<string, string> }) {
  return (
    <Grid container spacing={2}>
      <FigureCells
        figures={[
          [t('tasks'), s.tasks.total],
          [t('open_tasks'), s.tasks.open],
          [t('overdue_tasks'), s.tasks.overdue],
          [t('time_to_resolve'), hours(s.tasks.hours_to_resolve)],
        ]}
      />
      <Grid size={half}>
        <Chart title={t('tasks_by_status')} rows={s.tasks.by_month} by={(r) => r.status} />
      </Grid>
      <Grid size={half}>
        <Chart title={t('tasks_by_priority')} rows={s.tasks.by_month} by={(r) => r.priority} colors={configured} />
      </Grid>
    </Grid>
  );
}

/** Data sources: counts, volume, cost, delay, freshness, and by type, status and environment. */
function DataFigures({ s, t }: { s: Summary; t: T }) {
  return (
    <Grid container spacing={2}>
      <FigureCells
        figures={[
          [t('sources'), s.data.total],
          [t('daily_volume'), bytes(s.data.bytes_per_day)],
          [t('data_cost'), money(s.data.cost)],
          [t('mean_delay'), s.data.mean_delay_minutes === null ? null : t('minutes', { n: number(s.data.mean_delay_minutes) })],
        ]}
      />
      <FigureCells figures={(s.data.freshness as any[]).map((f) => [f.name, f.count])} />
      <Grid size={half}>
        <Chart title={t('sources_by_type')} rows={s.data.by_month} by={(r) => r.type} />
      </Grid>
      <Grid size={half}>
        <Chart title={t('sources_by_status')} rows={s.data.by_month} by={(r) => r.status} />
      </Grid>
      <Grid size={half}>
        <Chart title={t('sources_by_environment')} rows={s.data.by_month} by={(r) => r.environment} />
      </Grid>
      <Grid size={half}>
        <Lines title={t('most_queried')} lines={(s.data.most_queried as any[]).map((q) => t('queries_line', { name: q.name, smart_count: q.queries }))} />
      </Grid>
    </Grid>
  );
}

/** Feedback: counts, mean ratings, ratings over time, the summary and the latest. */
function FeedbackFigures({ s, t, project }: { s: Summary; t: T; project: string }) {
  return (
    <Grid container spacing={2}>
      <FigureCells
        figures={[
          [t('feedback'), s.feedback.total],
          [t('mean_rating'), s.feedback.mean_score === null ? null : t('of_five', { n: number(s.feedback.mean_score) })],
          [t('service_feedback'), s.feedback.service.total],
          [t('mean_effort'), s.feedback.service.mean_score === null ? null : t('of_five', { n: number(s.feedback.service.mean_score) })],
        ]}
      />
      <Grid size={half}>
        <Chart title={t('ratings')} rows={s.feedback.by_month} by={(r) => r.rating} order={FEEDBACK_RATINGS} />
      </Grid>
      <Grid size={half}>
        <Chart title={t('effort')} rows={s.feedback.service.by_month} by={(r) => r.rating} order={EFFORT_RATINGS} />
      </Grid>
      <Grid size={12}>
        <FeedbackSummary project={project} />
      </Grid>
      <Grid size={12}>
        <Lines
          title={t('latest_feedback')}
          lines={(s.feedback.latest as any[]).map((f) => `${utc(f.created_at)} · ${f.rating}${f.incident ? ` · ${f.incident}` : ''}: ${f.feedback}`)}
        />
      </Grid>
    </Grid>
  );
}

/** The figures of one dashboard, once the summary is read. */
function KindFigures({ kind, s, t, project, configured }: { kind: Kind; s: Summary; t: T; project: string; configured: Record<string, string> }) {
  if (kind === 'cases') return <CaseFigures s={s} t={t} configured={configured} />;
  if (kind === 'tasks') return <TaskFigures s={s} t={t} configured={configured} />;
  if (kind === 'people')
    return <Lines title={t('engaged')} lines={(s.people as any[]).map((p) => t('engaged_line', { email: p.email, smart_count: p.incidents }))} />;
  if (kind === 'data') return <DataFigures s={s} t={t} />;
  if (kind === 'feedback') return <FeedbackFigures s={s} t={t} project={project} />;
  return <IncidentFigures s={s} t={t} configured={configured} />;
}

/** The summary behind every dashboard, for a start date and a project; the last one stays shown while the next is read. */
function useSummary(since: string, project: string) {
  const dataProvider = useFirewatchData();
  const notify = useNotify();
  const { data } = useQuery({
    queryKey: ['iaos', 'view', 'metric/summary', since, project],
    queryFn: async ({ signal }) => {
      const query = { since, ...(project ? { project_id: project } : {}) };
      try {
        return (await dataProvider.view<Summary>('iaos', { path: 'metric/summary', query, signal })).data;
      } catch (e) {
        notify((e as Error).message, { type: 'error', autoHideDuration: 0 });
        throw e;
      }
    },
    enabled: !!since,
    placeholderData: keepPreviousData,
    retry: false,
  });
  return data ?? null;
}

/**
 * dashboards/{iaos|cases|tasks|data|people|feedback}: counts over time by status, type and
 * priority, times to stable and close, cost, data sources and their freshness, feedback ratings;
 * filtered by a start date and a project.
 */
export function Dashboards() {
  // Spec §2 writes dashboards/People and dashboards/Feedback with capitals.
  const asked = (useParams().kind ?? 'iaos').toLowerCase();
  const kind: Kind = (KINDS as readonly string[]).includes(asked) ? (asked as Kind) : 'iaos';
  const basename = useBasename();
  const translate = useTranslate();
  const t = (key: string, options?: Record<string, unknown>) => translate(`fw.dashboards.${key}`, options);
  const [since, setSince] = useState(() => new Date(Date.now() - 365 * 86400_000).toISOString().slice(0, 10));
  const [project, setProject] = useState<string>('');
  const { data: projects = [] } = useGetList<{ id: number; name: string }>('projects', {
    pagination: { page: 1, perPage: 200 },
    sort: { field: 'name', order: 'ASC' },
  });
  const s = useSummary(since, project);
  const configured = useConfiguredColors();
  return (
    <Box sx={{ p: 2 }}>
      <Title title={t('title')} />
      <Tabs value={kind} aria-label={t('title')} variant="scrollable" allowScrollButtonsMobile>
        {KINDS.map((k) => (
          <Tab key={k} value={k} label={t(`tabs.${k}`)} component={Link} to={`${basename}/dashboards/${k}`} />
        ))}
      </Tabs>
      <Stack direction="row" spacing={2} sx={{ my: 2, flexWrap: 'wrap' }}>
        <TextField
          type="date"
          label={t(kind === 'data' ? 'added_since' : 'reported_since')}
          value={since}
          onChange={(e) => setSince(e.target.value)}
          slotProps={{ inputLabel: { shrink: true } }}
        />
        {/* The browser's own list: MUI's menu could leave its invisible backdrop over the page when the chosen project was chosen again. */}
        <TextField
          select
          label={t('project')}
          value={project}
          onChange={(e) => setProject(e.target.value)}
          sx={{ minWidth: 200 }}
          slotProps={{ select: { native: true }, inputLabel: { shrink: true } }}
        >
          <option value="">{t('all_projects')}</option>
          {projects.map((p) => (
            <option key={p.id} value={String(p.id)}>
              {p.name}
            </option>
          ))}
        </TextField>
      </Stack>
      {!s ? <Typography>{translate('fw.responder.loading')}</Typography> : <KindFigures kind={kind} s={s} t={t} project={project} configured={configured} />}
    </Box>
  );
}

/**
 * What a project's feedback says, summarized on request (GET /feedback/summarize/{projectId}: the
 * configured model, else the most central sentences), with a note when the model could not answer.
 */
function FeedbackSummary({ project }: { project: string }) {
  const translate = useTranslate();
  const notify = useNotify();
  const t = (key: string) => translate(`fw.dashboards.${key}`);
  const [answer, setAnswer] = useState<{ project: string; summary: string; notice: string | null } | null>(null);
  const [busy, setBusy] = useState(false);
  const dataProvider = useFirewatchData();
  const run = () => {
    setBusy(true);
    dataProvider
      .view<{ summary: string; notice: string | null }>('feedback', { path: `summarize/${project}` })
      .then(({ data: r }) => setAnswer({ project, summary: r.summary, notice: r.notice }))
      .catch(() => notify('Failed to summarize feedback.', { type: 'error' }))
      .finally(() => setBusy(false));
  };
  const shown = answer?.project === project ? answer : null;
  return (
    <Card>
      <CardContent>
        <Stack direction="row" spacing={2} sx={{ alignItems: 'center', mb: shown ? 1 : 0 }}>
          <Typography variant="h6" component="h2" sx={{ flexGrow: 1 }}>
            {t('summary')}
          </Typography>
          <Button variant="outlined" disabled={!project || busy} onClick={run}>
            {busy ? t('summarizing') : t('summarize')}
          </Button>
        </Stack>
        {!project ? (
          <Typography variant="body2">{t('summary_pick_project')}</Typography>
        ) : shown ? (
          <>
            <Typography variant="body1" aria-label={t('summary')}>
              {shown.summary}
            </Typography>
            {shown.notice ? (
              <Alert severity="info" sx={{ mt: 1 }}>
                {shown.notice}
              </Alert>
            ) : null}
          </>
        ) : null}
      </CardContent>
    </Card>
  );
}

const hours = duration;
