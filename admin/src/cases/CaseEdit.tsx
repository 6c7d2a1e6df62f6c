import { Box, Typography } from '@mui/material';
import { TextInput, type RaRecord } from 'react-admin';
import { GenericEdit } from '../engine/screens.js';
import { orNull, TypeFields } from '../engine/TypeFields.js';

/**
 * A record in another system (the case's ticket, where its evidence is stored): three labelled inputs
 * instead of a box of JSON. Stored as `{resource_type, resource_id, weblink}`.
 */
function ExternalResourceInputs({
  source,
  heading,
  what,
}: {
  source: 'ticket' | 'storage';
  heading: string;
  what: { type: string; id: string; link: string };
}) {
  return (
    <Box component="fieldset" sx={{ border: 0, p: 0, m: 0, mt: 1, width: '100%' }}>
      <Typography component="legend" variant="subtitle1" sx={{ mb: 1 }}>
        {heading}
      </Typography>
      <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 2 }}>
        <TextInput source={`${source}.resource_type`} label={what.type} parse={orNull} helperText={false} />
        <TextInput source={`${source}.resource_id`} label={what.id} parse={orNull} helperText={false} />
        <TextInput source={`${source}.weblink`} label={what.link} type="url" parse={orNull} helperText={false} sx={{ flex: '1 1 320px' }} />
      </Box>
    </Box>
  );
}

const status =
  (...values: string[]) =>
  (record: RaRecord) =>
    values.includes(String(record.status));

/**
 * cases/{id}: the generic edit sheet, with the case's structured fields drawn as the spec has them:
 * the ticket and evidence storage as labelled inputs, the case type's own fields as inputs of their
 * kinds (a select for a select), never raw JSON.
 */
export function CaseEdit() {
  return (
    <GenericEdit
      tweaks={{ omit: ['custom_fields', 'ticket', 'storage'] }}
      actions={[
        { label: 'Open view', action: 'view', to: (r) => `/cases/${encodeURIComponent(String(r.name))}/view` },
        {
          label: 'Escalate to incident',
          action: 'escalate',
          method: 'PUT',
          when: status('New', 'Triage', 'Stable'),
          confirm: 'Escalate this case to a new incident?',
        },
      ]}
    >
      <TypeFields typeField="case_type_id" typesPath="/case_types" heading={(name) => `Fields of the case type ${name}`} />
      <ExternalResourceInputs source="ticket" heading="Ticket" what={{ type: 'Ticket system', id: 'Ticket id', link: 'Ticket link' }} />
      <ExternalResourceInputs source="storage" heading="Evidence storage" what={{ type: 'Storage kind', id: 'Storage id', link: 'Storage link' }} />
    </GenericEdit>
  );
}
