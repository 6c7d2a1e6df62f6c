import { useState } from 'react';
import { Alert, Button, Chip, Dialog, DialogActions, DialogContent, DialogTitle, TextField as MuiTextField } from '@mui/material';
import { useParams } from 'react-router-dom';
import { FunctionField, useGetIdentity, useNotify, useRedirect, useTranslate, type RaRecord } from 'react-admin';
import { GenericCreate, GenericEdit, GenericList } from './engine/screens.js';
import { TypeFields } from './engine/TypeFields.js';
import { catalogOverrides } from './catalog/overrides.js';
import { signalOverrides } from './signals/screens.js';
import { IncidentWorkflows, workflowOverrides } from './workflows/screens.js';
import type { Screens } from './engine/registry.js';
import { CaseList, HandoffList, IncidentList, TaskList } from './incidents/lists.js';
import { MemberList } from './accounts/members.js';
import { CaseEdit } from './cases/CaseEdit.js';
import { ReportPage } from './incidents/ReportPage.js';

/**
 * The few resources whose screens differ from the generic ones. Everything else (every definition
 * the server's /meta/resources lists) gets the generic list, create and edit screens.
 */

/** The secret of a new API key is in the create response only, so it is shown once, here. */
function ApiKeyCreate() {
  const [key, setKey] = useState<string | null>(null);
  const notify = useNotify();
  const redirect = useRedirect();
  return (
    <>
      <GenericCreate
        mutationOptions={{
          onSuccess: (data: { key?: string }) => {
            notify('API Key created successfully.', { type: 'success' });
            setKey(data.key ?? '');
          },
        }}
      />
      <Dialog open={key !== null} aria-labelledby="new-key-title">
        <DialogTitle id="new-key-title">Your new API key</DialogTitle>
        <DialogContent>
          <Alert severity="warning" sx={{ mb: 2 }}>
            Copy it now: it is not stored and will not be shown again.
          </Alert>
          <MuiTextField label="API key" value={key ?? ''} fullWidth slotProps={{ input: { readOnly: true } }} onFocus={(e) => e.target.select()} />
        </DialogContent>
        <DialogActions>
          <Button
            onClick={() => {
              void navigator.clipboard?.writeText(key ?? '').then(
                () => notify('Copied to clipboard.', { type: 'info' }),
                () => undefined,
              );
            }}
          >
            Copy
          </Button>
          <Button variant="contained" onClick={() => redirect('list', 'apikeys')}>
            Done
          </Button>
        </DialogActions>
      </Dialog>
    </>
  );
}

/** Banner and logging settings need the team plan (spec section 5); the name never changes (immutable). */
const PLAN_GATED = ['banner_text', 'banner_color', 'banner_enabled', 'storycurve_logging_enabled'];
function OrganizationEdit() {
  const { identity } = useGetIdentity();
  return <GenericEdit tweaks={{ locked: identity?.is_pro_team ? [] : PLAN_GATED }} />;
}
function OrganizationCreate() {
  const { identity } = useGetIdentity();
  return <GenericCreate tweaks={{ locked: identity?.is_pro_team ? [] : PLAN_GATED }} />;
}

const status =
  (...values: string[]) =>
  (record: RaRecord) =>
    values.includes(String(record.status));

/**
 * Incident lifecycle (spec §4): the server answers with the spec's messages, e.g. "Incident marked as stable. …".
 * The incident type's own fields are drawn as labelled inputs, not as JSON.
 */
const IncidentEdit = () => (
  <GenericEdit
    tweaks={{ omit: ['custom_fields'] }}
    actions={[
      { label: 'Open view', action: 'view', to: (r) => `/iaos/${encodeURIComponent(String(r.name))}/view` },
      { label: 'Join', action: 'join' },
      { label: 'Mark stable', action: 'stable', when: status('Active'), confirm: 'Mark this incident stable?' },
      { label: 'Mark closed', action: 'closed', when: status('Active', 'Stable'), confirm: 'Close this incident and its linked cases?' },
      { label: 'Reopen', action: 'active', when: status('Stable', 'Closed'), confirm: 'Reopen this incident?' },
    ]}
    aside={<IncidentWorkflows />}
  >
    <TypeFields typeField="incident_type_id" typesPath="/incident_types" heading={(name) => `Fields of the incident type ${name}`} />
  </GenericEdit>
);
const TaskEdit = () => (
  <GenericEdit
    actions={[
      { label: 'Resolve', action: 'mark-resolved', when: status('Open') },
      { label: 'Reopen', action: 'mark-open', when: status('Resolved') },
    ]}
  />
);
/** Passwords change through the account menu's dialog, only for oneself; a name only by its person (others change the role). */
function UserEdit() {
  const { identity } = useGetIdentity();
  const { id } = useParams();
  return <GenericEdit tweaks={{ omit: ['password'], locked: identity && String(identity.id) === id ? [] : ['display_name'] }} />;
}

/** Spec §6: an incident-role entry with renounced_at is 'Inactive' (the server's `status` says the same). */
function RoleStatus({ record }: { record: RaRecord }) {
  const translate = useTranslate();
  const inactive = !!record.renounced_at;
  return <Chip size="small" variant={inactive ? 'outlined' : 'filled'} label={translate(inactive ? 'fw.screens.role_inactive' : 'fw.screens.role_active')} />;
}
const IncidentRoleList = () => (
  <GenericList
    columns={['role', 'status', 'individual_id', 'service_id', 'incident_type_id', 'incident_priority_id', 'order', 'renounced_at']}
    cells={{ status: <FunctionField key="status" source="status" label="fw.screens.status" render={(record) => <RoleStatus record={record} />} /> }}
  />
);

const IncidentReport = () => <ReportPage key="iaos" resource="iaos" />;
const CaseReport = () => <ReportPage key="cases" resource="cases" />;

const generic: Screens = { list: GenericList, create: GenericCreate, edit: GenericEdit };

const overrides: Record<string, Partial<Screens>> = {
  apikeys: { create: ApiKeyCreate, menuLabel: 'API keys' },
  users: { list: MemberList, edit: UserEdit, menuLabel: 'Members' },
  organizations: { edit: OrganizationEdit, create: OrganizationCreate },
  // Create is the report form (title, type, severity, priority, description, visibility), not every column.
  iaos: { list: IncidentList, create: IncidentReport, edit: IncidentEdit, menuLabel: 'Incidents' },
  tasks: { list: TaskList, edit: TaskEdit },
  cases: { list: CaseList, create: CaseReport, edit: CaseEdit },
  'oncall/handoffs': { list: HandoffList },
  incident_roles: { list: IncidentRoleList },
  // Messages say "Link created successfully." (spec §8); the menu names the screen as spec §2 does.
  weblinks: { menuLabel: 'Weblinks' },
  ...catalogOverrides,
  ...signalOverrides,
  ...workflowOverrides,
};

export const screensFor = (resource: string): Screens => ({ ...generic, ...overrides[resource] });
