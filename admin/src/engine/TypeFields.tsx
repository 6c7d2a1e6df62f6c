import { keepPreviousData } from '@tanstack/react-query';
import { useWatch } from 'react-hook-form';
import { Box, Typography } from '@mui/material';
import { BooleanInput, DateTimeInput, NumberInput, required, SelectInput, TextInput, useGetOne, type Validator } from 'react-admin';

/** A field an incident or case type adds to its records (server/incidents/settings.ts `customField`). */
interface CustomField {
  name: string;
  type: 'text' | 'number' | 'boolean' | 'date' | 'select';
  required?: boolean;
  options?: string[];
}

/** An emptied input is no value (the API's checks refuse an empty string). */
export const orNull = (v: unknown) => (v === '' ? null : v);

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

/**
 * The fields the record's type adds (its `custom_fields` definitions), as labelled inputs of their
 * kinds instead of a box of JSON; they follow the type picked in the form. `typeField` is the form's
 * type reference (`case_type_id`), `typesPath` where the types are read (`/case_types`).
 */
export function TypeFields({ typeField, typesPath, heading }: { typeField: string; typesPath: string; heading: (typeName: string) => string }) {
  const typeId = useWatch({ name: typeField }) as number | null | undefined;
  // A resource's name is its path without the slash; the type picked before stays shown until the new one is read.
  const { data } = useGetOne<{ id: number; name: string; custom_fields?: CustomField[] }>(
    typesPath.replace(/^\//, ''),
    { id: typeId! },
    { enabled: !!typeId, placeholderData: keepPreviousData, retry: false },
  );
  const type = typeId && data ? { name: data.name, fields: data.custom_fields ?? [] } : null;
  if (!type?.fields.length) return null;
  return (
    <Box component="fieldset" sx={{ border: 0, p: 0, m: 0, mt: 1, width: '100%' }}>
      <Typography component="legend" variant="subtitle1" sx={{ mb: 1 }}>
        {heading(type.name)}
      </Typography>
      {type.fields.map((f) => (
        <CustomFieldInput key={f.name} field={f} />
      ))}
    </Box>
  );
}
