import { useEffect, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, CardContent, CardHeader, Chip, MenuItem, Stack, TextField, ToggleButton, ToggleButtonGroup, Typography } from '@mui/material';
import { Title, useCreate, useGetIdentity, useGetList, useNotify, useUpdate } from 'react-admin';
import type { ItemsPage } from '../core/dataProvider.js';
import { useFirewatchData } from '../core/queries.js';

interface Manifest {
  manifest: string;
  urls: Record<string, string>;
  scopes: { scope: string; why: string }[];
}
interface Instance {
  id: number;
  plugin_slug: string;
  title: string;
  enabled: boolean;
  configuration: Record<string, unknown>;
}
interface Installation {
  id: number;
  team_id: string;
  team_name: string | null;
  health: 'ok' | 'error' | 'uninstalled';
  last_error: { method: string; error: string; hint: string; at: string } | null;
  last_ok_at: string | null;
}

const atLeastAdmin = (role: unknown) => role === 'Admin' || role === 'Manager' || role === 'Owner';

/** Step 1: the manifest to paste into api.slack.com/apps, with the scopes and why each is needed. */
function ManifestStep({ mode, setMode }: { mode: 'events' | 'socket'; setMode: (m: 'events' | 'socket') => void }) {
  const dataProvider = useFirewatchData();
  // The other mode's manifest stays on screen until this one is read.
  const { data: manifest } = useQuery({
    queryKey: ['slack', 'view', 'manifest', mode],
    queryFn: async ({ signal }) => (await dataProvider.view<Manifest>('slack', { path: 'manifest', query: { mode }, signal })).data,
    placeholderData: keepPreviousData,
    retry: false,
  });
  return (
    <Card>
      <CardHeader title="1. Create the Slack app from this manifest" subheader='api.slack.com/apps → "Create New App" → "From a manifest", then paste.' />
      <CardContent>
        <ToggleButtonGroup exclusive size="small" value={mode} onChange={(_e, v) => v && setMode(v)} aria-label="Connection">
          <ToggleButton value="events">Events over HTTPS (public URL)</ToggleButton>
          <ToggleButton value="socket">Socket Mode (no public URL)</ToggleButton>
        </ToggleButtonGroup>
        <Typography component="pre" data-testid="slack-manifest" sx={{ mt: 2, p: 2, bgcolor: 'action.hover', overflow: 'auto', fontSize: 13 }}>
          {manifest?.manifest ?? 'Loading…'}
        </Typography>
        <Button size="small" onClick={() => manifest && void navigator.clipboard?.writeText(manifest.manifest)}>
          Copy manifest
        </Button>
        <Typography variant="subtitle2" sx={{ mt: 2 }}>
          Scopes the app asks for
        </Typography>
        <ul>
          {manifest?.scopes.map((s) => (
            <li key={s.scope}>
              <code>{s.scope}</code>: {s.why}
            </li>
          ))}
        </ul>
      </CardContent>
    </Card>
  );
}

/** Step 2: the app's credentials (a `slack-app` plugin instance; secrets are sealed and never shown again). */
function CredentialsStep({ instance, mode, onSaved }: { instance: Instance | null; mode: string; onSaved: () => void }) {
  const notify = useNotify();
  const [update] = useUpdate();
  const [create] = useCreate();
  const [values, setValues] = useState<Record<string, string>>({});
  const field = (key: string, label: string, secret = false) => (
    <TextField
      key={key}
      label={label}
      size="small"
      type={secret ? 'password' : 'text'}
      value={values[key] ?? (secret ? '' : String(instance?.configuration[key] ?? ''))}
      placeholder={secret && instance?.configuration[key] ? 'Saved (leave empty to keep)' : undefined}
      onChange={(e) => setValues({ ...values, [key]: e.target.value })}
      slotProps={{ htmlInput: { 'aria-label': label } }}
    />
  );
  const save = async () => {
    const configuration = { ...(instance?.configuration ?? {}), connection_mode: mode, ...values };
    try {
      // No previous data: the whole configuration is sent, as the form holds it.
      if (instance) await update('plugins/instances', { id: instance.id, data: { configuration } }, { returnPromise: true });
      else await create('plugins/instances', { data: { plugin_slug: 'slack-app', title: 'Slack', configuration } }, { returnPromise: true });
      setValues({});
      notify('Slack app credentials saved.', { type: 'success' });
      onSaved();
    } catch (err) {
      notify((err as Error).message, { type: 'error' });
    }
  };
  return (
    <Card>
      <CardHeader title="2. Paste the app's credentials" subheader="From the Slack app's Basic Information page." />
      <CardContent>
        <Stack spacing={2} sx={{ maxWidth: 520 }}>
          {field('client_id', 'Client ID')}
          {field('client_secret', 'Client secret', true)}
          {field('signing_secret', 'Signing secret', true)}
          {mode === 'socket' ? field('app_token', 'App-level token (xapp-…)', true) : null}
          <TextField
            select
            size="small"
            label="Archive channels when incidents close"
            value={String(instance?.configuration.archive_on_close ?? true)}
            onChange={(e) => setValues({ ...values, archive_on_close: e.target.value })}
          >
            <MenuItem value="true">Yes</MenuItem>
            <MenuItem value="false">No</MenuItem>
          </TextField>
          <Button variant="contained" onClick={() => void save()}>
            Save credentials
          </Button>
        </Stack>
      </CardContent>
    </Card>
  );
}

/** Step 3 and after: "Add to Slack", then each installed workspace's health with the fix in words. */
function InstallStep({ instance, installations }: { instance: Instance | null; installations: Installation[] }) {
  const notify = useNotify();
  const dataProvider = useFirewatchData();
  const addToSlack = async () => {
    try {
      const { data } = await dataProvider.action<{ url: string }>('slack', { path: 'install-link', data: { plugin_instance_id: instance!.id } });
      window.location.assign(data.url);
    } catch (err) {
      notify((err as Error).message, { type: 'error' });
    }
  };
  return (
    <Card>
      <CardHeader title="3. Install it in your workspace" />
      <CardContent>
        <Button variant="contained" disabled={!instance} onClick={() => void addToSlack()}>
          Add to Slack
        </Button>
        <Stack spacing={1} sx={{ mt: 2 }}>
          {installations.map((i) => (
            <Stack key={i.id} spacing={0.5} data-testid="slack-installation">
              <Typography>
                {i.team_name ?? i.team_id}{' '}
                <Chip size="small" label={i.health} color={i.health === 'ok' ? 'success' : i.health === 'error' ? 'error' : 'default'} />
              </Typography>
              {i.last_error ? (
                <Alert severity="error">
                  {i.last_error.method}: {i.last_error.error}. {i.last_error.hint}
                </Alert>
              ) : null}
            </Stack>
          ))}
        </Stack>
      </CardContent>
    </Card>
  );
}

/** admin/slack: connecting Slack in three steps. */
export function SlackSetup() {
  const { identity } = useGetIdentity();
  const [mode, setMode] = useState<'events' | 'socket'>('events');
  const dataProvider = useFirewatchData();
  const installed = new URLSearchParams(window.location.search);
  // The organization's slack-app instance, first in the server's order (by title).
  const instances = useGetList<Instance>('plugins/instances', {
    pagination: { page: 1, perPage: 1 },
    sort: { field: 'title', order: 'ASC' },
    filter: { plugin_slug: 'slack-app' },
  });
  const instance = instances.data?.[0] ?? null;
  const workspaces = useQuery({
    queryKey: ['slack', 'view', 'installations'],
    queryFn: async ({ signal }) => (await dataProvider.view<ItemsPage<Installation>>('slack', { path: 'installations', signal })).data.items,
  });
  const installations = workspaces.data ?? [];
  const socket = instance?.configuration.connection_mode === 'socket';
  useEffect(() => {
    if (socket) setMode('socket');
  }, [socket, instance]);
  const reload = () => Promise.all([instances.refetch(), workspaces.refetch()]);
  if (identity && !atLeastAdmin(identity.role)) return <Alert severity="info">Only an Admin or above may connect Slack.</Alert>;
  return (
    <Stack spacing={2} sx={{ mt: 2, maxWidth: 960 }}>
      <Title title="Connecting Slack" />
      {installed.get('installed') ? <Alert severity="success">Installed in {installed.get('installed')}.</Alert> : null}
      {installed.get('error') ? <Alert severity="error">Slack did not install the app: {installed.get('error')}.</Alert> : null}
      <ManifestStep mode={mode} setMode={setMode} />
      <CredentialsStep instance={instance} mode={mode} onSaved={() => void reload()} />
      <InstallStep instance={instance} installations={installations} />
    </Stack>
  );
}
