import { useEffect, useState } from 'react';
import { useWatch } from 'react-hook-form';
import { Box, Typography } from '@mui/material';
import { BooleanInput, DateTimeInput, NumberInput, required, SelectInput, TextInput, type RaRecord, type Validator } from 'react-admin';
import { api } from '../../providers/http.js';
import { GenericEdit } from '../generic/screens.js';

/** A field a case type adds to its cases (server/incidents/settings.ts `customField`). */
interface CustomField {
  name: string;
  type: 'text' | 'number' | 'boolean' | 'date' | 'select';
  required?: boolean;
  options?: string[];
}

/** An emptied input is no value (the API's URL check refuses an empty string). */
const orNull = (v: unknown) => (v === '' ? null : v);

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

/** One input for one custom field, of the kind its type gives it, under `custom_fields.<name>`. */
function CustomFieldInput({ field }: { field: CustomField }) {
  const source = `custom_fields.${field.name}`;
  const validate: Validator[] = field.required ? [required()] : [];
  const common = { source, label: field.name, validate, helperText: false as const };
  switch (field.type) {
    case 'number':
      return <NumberInput {...common} />;
    case 'boolean':
      return <BooleanInput source={source} label={field.name} helperText={false} />;
    case 'date':
      return <DateTimeInput {...common} parse={(v: string) => (v ? new Date(v).toISOString() : null)} />;
    case 'select':
      return <SelectInput {...common} choices={(field.options ?? []).map((o) => ({ id: o, name: o }))} emptyText={field.required ? undefined : '—'} />;
    default:
      return <TextInput {...common} parse={orNull} fullWidth />;
  }
}

/** The fields the chosen case type adds, as labelled inputs; they follow the type picked above. */
function CaseTypeFields() {
  const typeId = useWatch({ name: 'case_type_id' }) as number | null | undefined;
  const [fields, setFields] = useState<{ typeId: number; fields: CustomField[]; name: string } | null>(null);
  useEffect(() => {
    if (!typeId) return setFields(null);
    let current = true;
    void api<{ name: string; custom_fields?: CustomField[] }>(`/case_types/${typeId}`).then(
      (type) => current && setFields({ typeId, name: type.name, fields: type.custom_fields ?? [] }),
      () => current && setFields(null),
    );
    return () => {
      current = false;
    };
  }, [typeId]);
  if (!fields?.fields.length) return null;
  return (
    <Box component="fieldset" sx={{ border: 0, p: 0, m: 0, mt: 1, width: '100%' }}>
      <Typography component="legend" variant="subtitle1" sx={{ mb: 1 }}>
        Fields of the case type {fields.name}
      </Typography>
      {fields.fields.map((f) => (
        <CustomFieldInput key={f.name} field={f} />
      ))}
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
      <CaseTypeFields />
      <ExternalResourceInputs source="ticket" heading="Ticket" what={{ type: 'Ticket system', id: 'Ticket id', link: 'Ticket link' }} />
      <ExternalResourceInputs source="storage" heading="Evidence storage" what={{ type: 'Storage kind', id: 'Storage id', link: 'Storage link' }} />
    </GenericEdit>
  );
}
