import { useEffect, useMemo, useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { Box, Card, CardContent, Grid, Tab, Tabs, TextField, Typography } from '@mui/material';
import { Title, useBasename, useNotify } from 'react-admin';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { api } from '../../providers/http.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- figures come straight from the API */
type Summary = Record<string, any>;

const KINDS = [
  { key: 'iaos', label: 'Incidents' },
  { key: 'cases', label: 'Cases' },
  { key: 'tasks', label: 'Tasks' },
  { key: 'people', label: 'People' },
] as const;
const COLORS = ['#1565C0', '#C62828', '#EF6C00', '#2E7D32', '#6A1B9A', '#00838F', '#4E342E', '#546E7A'];

/** Rows of {month, key, count} → one object per month with a count per key, for a stacked bar chart. */
function pivot(rows: { month: string; count: number }[], by: (r: any) => string) {
  const months = new Map<string, Record<string, number | string>>();
  const keys = new Set<string>();
  for (const r of rows) {
    const k = by(r) ?? 'None';
    keys.add(k);
    const m = months.get(r.month) ?? { month: r.month };
    m[k] = ((m[k] as number | undefined) ?? 0) + r.count;
    months.set(r.month, m);
  }
  return { data: [...months.values()], keys: [...keys].sort() };
}

function Chart({ title, rows, by }: { title: string; rows: any[]; by: (r: any) => string }) {
  const { data, keys } = useMemo(() => pivot(rows, by), [rows, by]);
  return (
    <Card>
      <CardContent>
        <Typography variant="h6" component="h2">
          {title}
        </Typography>
        {data.length ? (
          <Box sx={{ height: 260 }} role="img" aria-label={`${title}: ${data.map((d) => `${d.month} ${keys.map((k) => `${k} ${d[k] ?? 0}`).join(', ')}`).join('; ')}`}>
            <ResponsiveContainer width="100%" height="100%">
              <BarChart data={data}>
                <CartesianGrid strokeDasharray="3 3" />
                <XAxis dataKey="month" />
                <YAxis allowDecimals={false} />
                <Tooltip />
                <Legend />
                {keys.map((k, i) => (
                  <Bar key={k} dataKey={k} stackId="a" fill={COLORS[i % COLORS.length]} />
                ))}
              </BarChart>
            </ResponsiveContainer>
          </Box>
        ) : (
          <Typography variant="body2">Nothing reported in this period.</Typography>
        )}
      </CardContent>
    </Card>
  );
}

function Figure({ label, value }: { label: string; value: string | number | null | undefined }) {
  return (
    <Card>
      <CardContent>
        <Typography variant="body2">{label}</Typography>
        <Typography variant="h5" component="p" aria-label={label}>
          {value === null || value === undefined ? '–' : value}
        </Typography>
      </CardContent>
    </Card>
  );
}

const hours = (h: number | null | undefined) => (h === null || h === undefined ? null : `${h.toLocaleString('en-US', { maximumSignificantDigits: 6 })} h`);

/** dashboards/{iaos|cases|tasks|people}: counts over time by status, type and priority, times to stable and close, cost. */
export function Dashboards() {
  const { kind = 'iaos' } = useParams();
  const notify = useNotify();
  const basename = useBasename();
  const [since, setSince] = useState(() => new Date(Date.now() - 365 * 86400_000).toISOString().slice(0, 10));
  const [summary, setSummary] = useState<Summary | null>(null);
  useEffect(() => {
    void api<Summary>(`/iaos/metric/summary?since=${since}`)
      .then(setSummary)
      .catch((e: Error) => notify(e.message, { type: 'error', autoHideDuration: 0 }));
  }, [since, notify]);
  const s = summary;
  return (
    <Box sx={{ p: 2 }}>
      <Title title="Dashboards" />
      <Tabs value={KINDS.some((k) => k.key === kind) ? kind : 'iaos'} aria-label="Dashboards">
        {KINDS.map((k) => (
          <Tab key={k.key} value={k.key} label={k.label} component={Link} to={`${basename}/dashboards/${k.key}`} />
        ))}
      </Tabs>
      <TextField type="date" label="Reported since" value={since} onChange={(e) => setSince(e.target.value)} sx={{ my: 2 }} slotProps={{ inputLabel: { shrink: true } }} />
      {!s ? (
        <Typography>Loading…</Typography>
      ) : kind === 'cases' ? (
        <Grid container spacing={2}>
          <Grid size={{ xs: 12, md: 4 }}><Figure label="Cases" value={s.cases.total} /></Grid>
          <Grid size={{ xs: 12, md: 4 }}><Figure label="Mean time to triage" value={hours(s.cases.hours_to_triage)} /></Grid>
          <Grid size={{ xs: 12, md: 4 }}><Figure label="Mean time to close" value={hours(s.cases.hours_to_close)} /></Grid>
          <Grid size={{ xs: 12, md: 6 }}><Chart title="Cases by status" rows={s.cases.by_month} by={(r) => r.status} /></Grid>
          <Grid size={{ xs: 12, md: 6 }}><Chart title="Cases by type" rows={s.cases.by_month} by={(r) => r.type} /></Grid>
        </Grid>
      ) : kind === 'tasks' ? (
        <Grid container spacing={2}>
          <Grid size={{ xs: 12, md: 3 }}><Figure label="Tasks" value={s.tasks.total} /></Grid>
          <Grid size={{ xs: 12, md: 3 }}><Figure label="Open tasks" value={s.tasks.open} /></Grid>
          <Grid size={{ xs: 12, md: 3 }}><Figure label="Overdue tasks" value={s.tasks.overdue} /></Grid>
          <Grid size={{ xs: 12, md: 3 }}><Figure label="Mean time to resolve" value={hours(s.tasks.hours_to_resolve)} /></Grid>
          <Grid size={{ xs: 12, md: 6 }}><Chart title="Tasks by status" rows={s.tasks.by_month} by={(r) => r.status} /></Grid>
          <Grid size={{ xs: 12, md: 6 }}><Chart title="Tasks by priority" rows={s.tasks.by_month} by={(r) => r.priority} /></Grid>
        </Grid>
      ) : kind === 'people' ? (
        <Card>
          <CardContent>
            <Typography variant="h6" component="h2">Most engaged responders</Typography>
            {(s.people as any[]).map((p) => (
              <Typography key={p.email} variant="body2">
                {p.email}: {p.incidents} incident{p.incidents === 1 ? '' : 's'}
              </Typography>
            ))}
          </CardContent>
        </Card>
      ) : (
        <Grid container spacing={2}>
          <Grid size={{ xs: 12, md: 3 }}><Figure label="Incidents" value={s.incidents.total} /></Grid>
          <Grid size={{ xs: 12, md: 3 }}><Figure label="Mean time to stable" value={hours(s.incidents.hours_to_stable)} /></Grid>
          <Grid size={{ xs: 12, md: 3 }}><Figure label="Mean time to close" value={hours(s.incidents.hours_to_close)} /></Grid>
          <Grid size={{ xs: 12, md: 3 }}><Figure label="Response cost" value={s.incidents.cost.toLocaleString('en-US', { style: 'currency', currency: 'USD', maximumSignificantDigits: 6 })} /></Grid>
          <Grid size={{ xs: 12, md: 4 }}><Chart title="Incidents by status" rows={s.incidents.by_month} by={(r) => r.status} /></Grid>
          <Grid size={{ xs: 12, md: 4 }}><Chart title="Incidents by type" rows={s.incidents.by_month} by={(r) => r.type} /></Grid>
          <Grid size={{ xs: 12, md: 4 }}><Chart title="Incidents by priority" rows={s.incidents.by_month} by={(r) => r.priority} /></Grid>
        </Grid>
      )}
    </Box>
  );
}
