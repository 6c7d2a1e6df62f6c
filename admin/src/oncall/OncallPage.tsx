import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Box, Button, Card, CardContent, MenuItem, Stack, Table, TableBody, TableCell, TableHead, TableRow, TextField, Typography } from '@mui/material';
import { Title, useNotify } from 'react-admin';
import type { ItemsPage } from '../core/dataProvider.js';
import { useFirewatchData } from '../core/queries.js';

/**
 * On-call at a glance: who is on call on every schedule now, a schedule's next four weeks as a
 * calendar (one row per day, who holds it when), my iCal feed, and my notification channels with a
 * test button. Schedules, overrides, escalation policies and pages have their own list screens.
 */
interface Shift {
  start: string;
  end: string;
  email: string;
  source: number | 'override';
}
interface Now {
  schedule_id: number;
  name: string;
  oncall: Shift | null;
}
interface Channel {
  id: number;
  kind: string;
  address: string;
  delay_minutes: number;
  enabled: boolean;
}

const DAY = 86_400_000;
const time = (iso: string) => new Date(iso).toLocaleString(undefined, { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });

function Calendar({ scheduleId }: { scheduleId: number }) {
  const dataProvider = useFirewatchData();
  const { data: shifts = [] } = useQuery({
    queryKey: ['oncall/schedules', 'view', String(scheduleId), 'shifts'],
    queryFn: async ({ signal }) => {
      const from = new Date(new Date().setHours(0, 0, 0, 0));
      const to = new Date(from.getTime() + 28 * DAY);
      const query = { from: from.toISOString(), to: to.toISOString() };
      return (await dataProvider.view<ItemsPage<Shift>>('oncall/schedules', { id: scheduleId, path: 'shifts', query, signal })).data.items;
    },
  });
  const days = Array.from({ length: 28 }, (_, i) => new Date(new Date().setHours(0, 0, 0, 0) + i * DAY));
  return (
    <Table size="small" aria-label="On-call calendar">
      <TableHead>
        <TableRow>
          <TableCell>Day</TableCell>
          <TableCell>On call</TableCell>
        </TableRow>
      </TableHead>
      <TableBody>
        {days.map((d) => {
          const end = d.getTime() + DAY;
          const held = shifts.filter((s) => new Date(s.start).getTime() < end && new Date(s.end).getTime() > d.getTime());
          return (
            <TableRow key={d.toISOString()}>
              <TableCell>{d.toLocaleDateString(undefined, { weekday: 'short', day: 'numeric', month: 'short' })}</TableCell>
              <TableCell>
                {held.map((s) => (
                  <Box component="span" key={s.start} sx={{ mr: 2, fontWeight: s.source === 'override' ? 700 : 400 }}>
                    {s.email}
                    {s.source === 'override' ? ' (override)' : ''} until {time(s.end)}
                  </Box>
                ))}
              </TableCell>
            </TableRow>
          );
        })}
      </TableBody>
    </Table>
  );
}

function Channels() {
  const notify = useNotify();
  const dataProvider = useFirewatchData();
  // The caller's own channels (/oncall/channels is not a generic resource).
  const { data: items = [], refetch } = useQuery({
    queryKey: ['oncall/channels', 'view', 'mine'],
    queryFn: async ({ signal }) => (await dataProvider.view<ItemsPage<Channel>>('oncall/channels', { signal })).data.items,
  });
  const [draft, setDraft] = useState({ kind: 'email', address: '', delay_minutes: '0' });
  const add = async () => {
    try {
      await dataProvider.action('oncall/channels', { data: { ...draft, delay_minutes: Number(draft.delay_minutes) } });
      setDraft({ ...draft, address: '' });
      void refetch();
    } catch (e) {
      notify((e as Error).message, { type: 'error' });
    }
  };
  const test = async (id: number) => {
    const { data: r } = await dataProvider.action<{ ok: boolean; error: string | null }>('oncall/channels', { id, path: 'test' });
    notify(r.ok ? 'Test message sent' : `Not sent: ${r.error}`, { type: r.ok ? 'info' : 'error' });
  };
  return (
    <Stack spacing={1}>
      {items.map((c) => (
        <Stack direction="row" spacing={2} alignItems="center" key={c.id}>
          <Typography>
            {c.kind}: {c.address} after {c.delay_minutes} min
          </Typography>
          <Button size="small" onClick={() => void test(c.id)}>
            Test
          </Button>
        </Stack>
      ))}
      <Stack direction="row" spacing={1}>
        <TextField select size="small" label="Kind" value={draft.kind} onChange={(e) => setDraft({ ...draft, kind: e.target.value })}>
          {['email', 'ntfy', 'sms', 'voice', 'webhook', 'slack'].map((k) => (
            <MenuItem key={k} value={k}>
              {k}
            </MenuItem>
          ))}
        </TextField>
        <TextField size="small" label="Address" value={draft.address} onChange={(e) => setDraft({ ...draft, address: e.target.value })} />
        <TextField
          size="small"
          label="After minutes"
          type="number"
          value={draft.delay_minutes}
          onChange={(e) => setDraft({ ...draft, delay_minutes: e.target.value })}
        />
        <Button variant="contained" onClick={() => void add()} disabled={!draft.address}>
          Add channel
        </Button>
      </Stack>
    </Stack>
  );
}

export function OncallPage() {
  const dataProvider = useFirewatchData();
  const { data: now = [] } = useQuery({
    queryKey: ['oncall', 'view', 'now'],
    queryFn: async ({ signal }) => (await dataProvider.view<ItemsPage<Now>>('oncall', { path: 'now', signal })).data.items,
  });
  const [picked, setChosen] = useState<number | null>(null);
  // Until one is picked, the first schedule's calendar is shown.
  const chosen = picked ?? now[0]?.schedule_id ?? null;
  const [feed, setFeed] = useState<string | null>(null);
  const makeFeed = () => dataProvider.action<{ url: string }>('oncall', { path: 'feeds/me', data: {} }).then(({ data }) => setFeed(data.url));
  return (
    <Stack spacing={2} sx={{ mt: 2 }}>
      <Title title="On-call" />
      <Card>
        <CardContent>
          <Typography variant="h6">Who is on call now</Typography>
          {now.map((n) => (
            <Typography key={n.schedule_id}>
              <Button size="small" onClick={() => setChosen(n.schedule_id)}>
                {n.name}
              </Button>
              {n.oncall ? `${n.oncall.email} until ${time(n.oncall.end)}` : 'nobody'}
            </Typography>
          ))}
          {!now.length && <Typography>No schedules yet (On-call schedules in the menu).</Typography>}
        </CardContent>
      </Card>
      {chosen && (
        <Card>
          <CardContent>
            <Typography variant="h6">Next four weeks: {now.find((n) => n.schedule_id === chosen)?.name}</Typography>
            <Calendar scheduleId={chosen} />
          </CardContent>
        </Card>
      )}
      <Card>
        <CardContent>
          <Typography variant="h6">My notification channels</Typography>
          <Channels />
          <Box sx={{ mt: 2 }}>
            <Button onClick={() => void makeFeed()}>My calendar feed (iCal)</Button>
            {feed && <Typography sx={{ wordBreak: 'break-all' }}>{feed}</Typography>}
          </Box>
        </CardContent>
      </Card>
    </Stack>
  );
}
