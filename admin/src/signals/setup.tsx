import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  TextField as MuiTextField,
  ToggleButton,
  ToggleButtonGroup,
  Typography,
} from '@mui/material';
import { useNotify, useRecordContext, useRedirect, type Identifier } from 'react-admin';
import { GenericCreate } from '../engine/screens.js';
import type { ItemsPage } from '../core/dataProvider.js';
import { useFirewatchData } from '../core/queries.js';
import { organization } from '../core/org.js';
import { SENDERS, senderOf, type Sender, type SenderId } from './senders.js';

/**
 * The guided source set-up (issue 35): pick the sender, create the definition, then get its URL, its
 * key and a ready snippet, send a test alert in the sender's own format, and see it arrive.
 */
const base = () => `${window.location.origin}/api/v1/${organization}`;

interface Received {
  id: number;
  created_at: string;
  source: string;
  event_action: string;
  filter_action: string | null;
  case_id: number | null;
  processed_at: string | null;
}

const outcomeOf = (r: Received) =>
  !r.processed_at
    ? 'waiting to be processed'
    : r.event_action === 'change'
      ? 'change recorded'
      : r.filter_action === 'snooze'
        ? 'snoozed'
        : r.filter_action === 'deduplicate'
          ? `joined case ${r.case_id}`
          : r.case_id
            ? `opened case ${r.case_id}`
            : 'stored (no case)';

/** "Last received" and its outcome, refreshed every 2 seconds. */
export function LastReceived({ signalId }: { signalId: Identifier }) {
  const dataProvider = useFirewatchData();
  // A failed read keeps what was last shown; the next tick asks again.
  const { data: last } = useQuery({
    queryKey: ['signals', 'view', String(signalId), 'instances'],
    queryFn: async ({ signal }) =>
      (await dataProvider.view<ItemsPage<Received>>('signals', { id: signalId, path: 'instances', query: { itemsPerPage: 1 }, signal })).data.items[0] ?? null,
    refetchInterval: 2000,
    refetchIntervalInBackground: true,
    retry: false,
  });
  return (
    <Typography variant="body2" aria-label="Last received" sx={{ mt: 1 }}>
      {last === undefined
        ? 'Last received: …'
        : last === null
          ? 'Last received: nothing yet'
          : `Last received: ${new Date(last.created_at).toLocaleString()} (${last.source}) — ${outcomeOf(last)}`}
    </Typography>
  );
}

function Copyable({ label, value, multiline }: { label: string; value: string; multiline?: boolean }) {
  const notify = useNotify();
  return (
    <Box sx={{ display: 'flex', gap: 1, alignItems: 'flex-start', my: 1 }}>
      <MuiTextField
        label={label}
        value={value}
        fullWidth
        multiline={multiline}
        slotProps={{ input: { readOnly: true, sx: { fontFamily: 'monospace', fontSize: 12 } } }}
      />
      <Button
        aria-label={`Copy ${label.toLowerCase()}`}
        onClick={() =>
          navigator.clipboard.writeText(value).then(
            () => notify(`${label} copied.`, { type: 'info' }),
            () => notify('Copy failed: select the text instead.', { type: 'warning' }),
          )
        }
      >
        Copy
      </Button>
    </Box>
  );
}

/** Sends the sender's test alert to its own route with the source's key. */
async function sendTest(sender: Sender, key: string) {
  const { headers, body } = sender.test(key);
  const res = await fetch(`${base()}${sender.path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`The test alert got ${res.status}: ${await res.text()}`);
}

function SetupDialog({ sender, created, onDone }: { sender: Sender; created: { id: Identifier; key: string }; onDone: () => void }) {
  const notify = useNotify();
  return (
    <Dialog open maxWidth="md" fullWidth aria-labelledby="source-setup-title">
      <DialogTitle id="source-setup-title">Send alerts from {sender.label}</DialogTitle>
      <DialogContent>
        <Alert severity="warning" sx={{ mb: 1 }}>
          Copy the key now: only its hash is stored (Rotate key on the source gives a new one).
        </Alert>
        <Copyable label="URL" value={`${base()}${sender.path}`} />
        <Copyable label="Ingest key" value={created.key} />
        <Copyable label="Configuration snippet" value={sender.snippet(base(), created.key)} multiline />
        <Button
          variant="outlined"
          onClick={() =>
            sendTest(sender, created.key).then(
              () => notify('Test alert sent.', { type: 'success' }),
              (e: Error) => notify(e.message, { type: 'error' }),
            )
          }
        >
          Send a test alert
        </Button>
        <LastReceived signalId={created.id} />
      </DialogContent>
      <DialogActions>
        <Button variant="contained" onClick={onDone}>
          Done
        </Button>
      </DialogActions>
    </Dialog>
  );
}

/** The create screen: the sender first, then the definition's form; the set-up dialog once created. */
export function SignalSetup() {
  const [sender, setSender] = useState<SenderId>('alertmanager');
  const [created, setCreated] = useState<{ id: Identifier; key: string } | null>(null);
  const notify = useNotify();
  const redirect = useRedirect();
  return (
    <>
      <Card sx={{ mt: 2 }}>
        <CardContent>
          <Typography variant="h6">Where will the alerts come from?</Typography>
          <ToggleButtonGroup exclusive value={sender} onChange={(_e, v: SenderId | null) => v && setSender(v)} aria-label="Sender" sx={{ flexWrap: 'wrap' }}>
            {SENDERS.map((s) => (
              <ToggleButton key={s.id} value={s.id} size="small">
                {s.label.split(' (')[0]}
              </ToggleButton>
            ))}
          </ToggleButtonGroup>
        </CardContent>
      </Card>
      <GenericCreate
        // A source is set up to open cases: its switches start on, as the server's defaults are.
        defaults={{ enabled: true, create_case: true }}
        transform={(data: Record<string, unknown>) => ({ ...data, source: sender })}
        mutationOptions={{
          onSuccess: (data: { id: Identifier; ingest_key?: string }) => {
            notify('Signal created successfully.', { type: 'success' });
            setCreated({ id: data.id, key: data.ingest_key ?? '' });
          },
        }}
      />
      {created ? <SetupDialog sender={senderOf(sender)} created={created} onDone={() => redirect('edit', 'signals', created.id)} /> : null}
    </>
  );
}

/** On the edit screen: where this source sends (the key itself is not kept), and what it last sent. */
export function SourcePanel() {
  const record = useRecordContext();
  if (!record?.id) return null;
  const sender = senderOf(record.source);
  return (
    <Card sx={{ width: 380, ml: 2, mb: 2 }}>
      <CardContent>
        <Typography variant="h6">{sender.label.split(' (')[0]}</Typography>
        <Copyable label="URL" value={`${base()}${sender.path}`} />
        <Copyable label="Configuration snippet" value={sender.snippet(base(), '<ingest key>')} multiline />
        <LastReceived signalId={record.id} />
      </CardContent>
    </Card>
  );
}
