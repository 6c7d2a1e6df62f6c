import { useEffect, useState } from 'react';
import { Alert, Button, Card, CardContent, CardHeader, Grid, Stack, Typography } from '@mui/material';
import { Form, SaveButton, TextInput, Title, useGetIdentity, useGetOne, useNotify } from 'react-admin';
import { useFirewatchData } from '../core/queries.js';
import { useOrganizations, type Organization } from '../shell/useOrganization.js';
import { loadSite, type SiteSettings } from '../site/site.js';
import { OrganizationDialog } from '../shell/OrganizationDialog.js';

const atLeastAdmin = (role: unknown) => role === 'Admin' || role === 'Manager' || role === 'Owner';

const LINK_FIELDS: { source: keyof SiteSettings; label: string; help?: string }[] = [
  { source: 'contact_email', label: 'Contact e-mail' },
  { source: 'contact_phone', label: 'Contact phone' },
  { source: 'slack_url', label: 'Slack channel link' },
  { source: 'slack_install_url', label: 'Slack install link', help: 'Where "Add to Slack" goes.' },
  { source: 'demo_url', label: 'Book a demo link' },
  { source: 'oncall_url', label: 'On-call product link' },
  { source: 'dfir_url', label: 'DFIR and SOC product link' },
  { source: 'status_page_url', label: 'Status page link' },
];

/** Contact menu, sibling product links and the temporary message (PUT /site/settings). */
function SiteSettingsForm({ canEdit }: { canEdit: boolean }) {
  const notify = useNotify();
  const dataProvider = useFirewatchData();
  const [settings, setSettings] = useState<SiteSettings | null>(null);
  useEffect(() => void loadSite(true).then((s) => setSettings(s.settings)), []);
  const submit = (values: Record<string, unknown>) => {
    const body = Object.fromEntries(
      [...LINK_FIELDS.map((f) => f.source), 'temporary_message'].map((k) => [k, typeof values[k] === 'string' && values[k] ? String(values[k]).trim() : null]),
    );
    return dataProvider.action<SiteSettings>('site', { path: 'settings', method: 'PUT', data: body }).then(
      ({ data: saved }) => {
        setSettings(saved);
        void loadSite(true);
        notify('Organization settings updated successfully.', { type: 'success' });
      },
      (error: { body?: { errors?: Record<string, string> } }) => error.body?.errors,
    );
  };
  if (!settings) return <Typography>Loading…</Typography>;
  return (
    <Form onSubmit={submit} record={settings as never} noValidate>
      <Grid container columnSpacing={2}>
        {LINK_FIELDS.map((f) => (
          <Grid key={f.source} size={{ xs: 12, md: 6 }}>
            <TextInput source={f.source} label={f.label} helperText={f.help ?? false} fullWidth disabled={!canEdit} />
          </Grid>
        ))}
        <Grid size={12}>
          <TextInput
            source="temporary_message"
            label="Temporary message"
            helperText="Shown at the top of every open page for 30 seconds after it loads; leave empty for none."
            fullWidth
            multiline
            disabled={!canEdit}
          />
        </Grid>
      </Grid>
      {canEdit ? <SaveButton label="Save settings" alwaysEnable /> : null}
    </Form>
  );
}

/** admin/settings: the organization (edited in its dialog) and how visitors reach it. */
export function OrganizationSettings() {
  const { current } = useOrganizations();
  const { identity } = useGetIdentity();
  const { data: organization, refetch } = useGetOne<Organization & { storycurve_logging_enabled?: boolean }>(
    'organizations',
    { id: current?.id ?? 0 },
    { enabled: !!current },
  );
  const [editing, setEditing] = useState(false);
  const canEdit = atLeastAdmin(identity?.role);
  return (
    <Stack spacing={2} sx={{ mt: 2, maxWidth: 960 }}>
      <Title title="Organization settings" />
      {!canEdit && identity ? <Alert severity="info">Only an Admin or above may change these settings.</Alert> : null}
      <Card>
        <CardHeader
          title="Organization"
          titleTypographyProps={{ component: 'h2', variant: 'h6' }}
          action={canEdit && organization ? <Button onClick={() => setEditing(true)}>Edit organization</Button> : null}
        />
        <CardContent>
          <Typography>
            <strong>{organization?.name ?? '…'}</strong> ({organization?.slug})
          </Typography>
          <Typography color="text.secondary">{organization?.description}</Typography>
          <Typography variant="body2" sx={{ mt: 1 }}>
            Plan: {organization?.plan}
          </Typography>
        </CardContent>
      </Card>
      <Card>
        <CardHeader
          title="Contact menu, product links and message"
          titleTypographyProps={{ component: 'h2', variant: 'h6' }}
          subheader="Shown in the toolbar and on the public pages; empty fields are left out."
        />
        <CardContent>
          <SiteSettingsForm canEdit={canEdit} />
        </CardContent>
      </Card>
      {organization ? (
        <OrganizationDialog
          open={editing}
          organization={organization}
          onClose={() => {
            setEditing(false);
            void refetch();
          }}
        />
      ) : null}
    </Stack>
  );
}
