import {
  AutocompleteArrayInput,
  AutocompleteInput,
  BooleanInput,
  DateTimeInput,
  NumberInput,
  ReferenceArrayInput,
  ReferenceInput,
  SelectInput,
  TextArrayInput,
  TextInput,
  maxLength,
  maxValue,
  minValue,
  required,
  type Validator,
} from 'react-admin';
import { humanize, metaOf, representation, type FieldSpec } from '../../meta.js';

const json: { format: (v: unknown) => string; parse: (v: string) => unknown; validate: Validator } = {
  format: (v) => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v, null, 2)),
  // Keeps unparsable text as it is so the validator below can name the problem.
  parse: (v) => {
    if (v.trim() === '') return null;
    try {
      return JSON.parse(v);
    } catch {
      return v;
    }
  },
  validate: (v) => (typeof v === 'string' && v.trim() !== '' ? 'Must be valid JSON' : undefined),
};

/** The sort a reference picker uses: the target's default sort when known. */
function referenceSort(resource: string) {
  const [field, dir] = metaOf(resource)?.sort[0] ?? ['id', 'asc'];
  return { field, order: dir === 'desc' ? ('DESC' as const) : ('ASC' as const) };
}

/** One input for one body field, chosen from its JSON schema. */
export function FieldInput({ spec, disabled }: { spec: FieldSpec; disabled?: boolean }) {
  const label = humanize(spec.name);
  const validate: Validator[] = [];
  if (spec.required) validate.push(required());
  if (spec.maxLength && spec.kind !== 'reference') validate.push(maxLength(spec.maxLength));
  if (spec.kind === 'number') {
    if (spec.min !== undefined) validate.push(minValue(spec.min));
    if (spec.max !== undefined && spec.max < Number.MAX_SAFE_INTEGER) validate.push(maxValue(spec.max));
  }
  const common = { source: spec.name, label, disabled, validate };
  switch (spec.kind) {
    case 'reference':
      if (spec.many)
        return (
          <ReferenceArrayInput source={spec.name} reference={spec.reference!} sort={referenceSort(spec.reference!)}>
            <AutocompleteArrayInput label={label} validate={validate} disabled={disabled} optionText={representation} fullWidth />
          </ReferenceArrayInput>
        );
      return (
        <ReferenceInput source={spec.name} reference={spec.reference!} sort={referenceSort(spec.reference!)}>
          <AutocompleteInput label={label} validate={validate} disabled={disabled} optionText={representation} fullWidth />
        </ReferenceInput>
      );
    case 'enum':
      return <SelectInput {...common} choices={(spec.choices ?? []).map((c) => ({ id: c, name: c }))} emptyText={spec.required ? undefined : '—'} />;
    case 'boolean':
      return <BooleanInput source={spec.name} label={label} disabled={disabled} />;
    case 'number':
      return <NumberInput {...common} />;
    case 'date':
      // The browser's input holds local time without an offset; the API takes ISO date-times with one.
      return <DateTimeInput {...common} parse={(v: string) => (v ? new Date(v).toISOString() : null)} />;
    case 'strings':
      return <TextArrayInput source={spec.name} label={label} disabled={disabled} helperText="Press Enter after each value" fullWidth />;
    case 'json':
      return <TextInput {...common} validate={[...validate, json.validate]} format={json.format} parse={json.parse} multiline minRows={3} fullWidth />;
    case 'longtext':
      return <TextInput {...common} multiline minRows={3} fullWidth />;
    case 'color':
      return <TextInput {...common} helperText="A colour like #1565C0" />;
    case 'email':
      return <TextInput {...common} type="email" />;
    case 'url':
      return <TextInput {...common} type="url" fullWidth />;
    default:
      return <TextInput {...common} fullWidth={(spec.maxLength ?? 0) > 200} />;
  }
}
