import { Button, Dialog, DialogActions, DialogContent, DialogTitle, Typography } from '@mui/material';
import { BooleanInput, Form, SaveButton, TextInput, required, useCreate, useGetIdentity, useNotify, useUpdate } from 'react-admin';
import { switchOrganization } from '../core/org.js';
import type { Organization } from './useOrganization.js';
import { LoadingOverlay } from './LoadingOverlay.js';
import { useState } from 'react';

const COLOUR = /^#[0-9a-fA-F]{6}$/;
const colour = (value: unknown) => (value && !COLOUR.test(String(value)) ? 'Must be a colour like #1565C0' : undefined);

/**
 * Spec §5's organization dialog: create (name and description required) or edit (name locked);
 * the banner and story-curve settings are a Custom Plan's (pro team), disabled otherwise.
 */
export function OrganizationDialog({
  open,
  onClose,
  organization,
}: {
  open: boolean;
  onClose: () => void;
  organization?: Organization & { storycurve_logging_enabled?: boolean };
}) {
  const [create] = useCreate();
  const [update] = useUpdate();
  const notify = useNotify();
  const { identity } = useGetIdentity();
  const proTeam = !!identity?.is_pro_team;
  const editing = !!organization;
  const [switching, setSwitching] = useState<string | null>(null);
  const fail = (error: { body?: { errors?: Record<string, string> } }) => error.body?.errors;
  const submit = (values: Record<string, unknown>) =>
    editing
      ? update(
          'organizations',
          {
            id: organization.id,
            data: {
              description: values.description,
              ...(proTeam
                ? {
                    banner_text: values.banner_text || null,
                    banner_color: values.banner_color || organization.banner_color,
                    banner_enabled: !!values.banner_enabled,
                    storycurve_logging_enabled: !!values.storycurve_logging_enabled,
                  }
                : {}),
            },
            previousData: organization,
          },
          { returnPromise: true, mutationMode: 'pessimistic' },
        ).then(() => {
          notify(`Organization '${organization.name}' updated successfully.`, { type: 'success' });
          onClose();
        }, fail)
      : create('organizations', { data: { name: values.name, description: values.description } }, { returnPromise: true }).then((org: Organization) => {
          notify(`Organization '${org.name}' created successfully.`, { type: 'success' });
          setSwitching(org.name);
          switchOrganization(org.slug);
        }, fail);
  return (
    <>
      <LoadingOverlay open={!!switching} label={`Opening ${switching ?? ''}…`} />
      <Dialog open={open} onClose={onClose} aria-labelledby="organization-dialog-title" fullWidth maxWidth="sm">
        <Form onSubmit={submit} noValidate record={organization} key={organization?.id ?? 'new'}>
          <DialogTitle id="organization-dialog-title">{editing ? 'Edit organization' : 'New organization'}</DialogTitle>
          <DialogContent>
            <TextInput
              source="name"
              label="Name"
              validate={required()}
              fullWidth
              disabled={editing}
              helperText={editing ? 'The name cannot change once the organization exists.' : false}
            />
            <TextInput source="description" label="Description" validate={required()} multiline minRows={2} fullWidth />
            {editing ? (
              <>
                {!proTeam ? (
                  <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
                    The banner and story curves are part of the Custom Plan.
                  </Typography>
                ) : null}
                <TextInput source="banner_text" label="Banner text" fullWidth disabled={!proTeam} />
                <TextInput source="banner_color" label="Banner colour" fullWidth disabled={!proTeam} validate={colour} helperText="A colour like #1565C0" />
                <BooleanInput source="banner_enabled" label="Show the banner" disabled={!proTeam} />
                <BooleanInput source="storycurve_logging_enabled" label="Record story curves of incident timelines" disabled={!proTeam} />
              </>
            ) : null}
          </DialogContent>
          <DialogActions>
            <Button onClick={onClose}>Cancel</Button>
            <SaveButton label={editing ? 'Save' : 'Create'} alwaysEnable />
          </DialogActions>
        </Form>
      </Dialog>
    </>
  );
}
