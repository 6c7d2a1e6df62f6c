import {
  useResourceContext,
  ArrayInput,
  AutocompleteArrayInput,
  AutocompleteInput,
  BooleanInput,
  DateTimeInput,
  NumberInput,
  ReferenceArrayInput,
  ReferenceInput,
  SelectArrayInput,
  SelectInput,
  SimpleFormIterator,
  TextArrayInput,
  TextInput,
  maxLength,
  maxValue,
  minValue,
  required,
  type Validator,
} from 'react-admin';
import { rememberProject, storedProject } from '../core/project.js';
import { metaOf, type FieldSpec } from '../core/meta.js';

/**
 * A free-form JSON field: shown pretty-printed (an empty object or list shows as an empty box, not
 * `{}`), parsed on the way out; an empty box is the empty object or list again.
 */
function jsonCodec(empty: FieldSpec['empty']): { format: (v: unknown) => string; parse: (v: string) => unknown; validate: Validator } {
  const isEmpty = (v: unknown) =>
    v === undefined || v === null || (Array.isArray(v) ? v.length === 0 : typeof v === 'object' && Object.keys(v as object).length === 0);
  return {
    format: (v) => (isEmpty(v) ? '' : typeof v === 'string' ? v : JSON.stringify(v, null, 2)),
    // Keeps unparsable text as it is so the validator below can name the problem.
    parse: (v) => {
      if (v.trim() === '') return empty === 'array' ? [] : empty === 'object' ? {} : null;
      try {
        return JSON.parse(v);
      } catch {
        return v;
      }
    },
    validate: (v) => (typeof v === 'string' && v.trim() !== '' ? 'Must be valid JSON' : undefined),
  };
}

const idsOf = (value: unknown) =>
  Array.isArray(value) ? value.map((v: unknown) => (v && typeof v === 'object' && 'id' in v ? (v as { id: unknown }).id : v)) : value;

/** The sort a reference picker uses: the target's default sort when known. */
function referenceSort(resource: string) {
  const [field, dir] = metaOf(resource)?.sort[0] ?? ['id', 'asc'];
  return { field, order: dir === 'desc' ? ('DESC' as const) : ('ASC' as const) };
}

/** The everyday records whose create forms start from the remembered project (spec §4). */
const KEEPS_PROJECT = new Set(['iaos', 'cases', 'tasks']);

/** One input for one body field, of the kind the server gives it. */
export function FieldInput({ spec, disabled, source = spec.name }: { spec: FieldSpec; disabled?: boolean; source?: string }) {
  const resource = useResourceContext();
  const label = spec.label;
  const helperText = spec.help;
  const validate: Validator[] = [];
  if (spec.required) validate.push(required());
  if (spec.maxLength && spec.kind !== 'reference') validate.push(maxLength(spec.maxLength));
  if (spec.kind === 'number') {
    if (spec.min !== undefined) validate.push(minValue(spec.min));
    if (spec.max !== undefined && spec.max < Number.MAX_SAFE_INTEGER) validate.push(maxValue(spec.max));
  }
  const common = { source, label, disabled, validate, helperText };
  switch (spec.kind) {
    // Options read as the target's recordRepresentation (the server's, set on each Resource).
    case 'references':
      return (
        <ReferenceArrayInput source={source} reference={spec.resource!} sort={referenceSort(spec.resource!)}>
          {/* Full records answer lists of references as {id, name} objects; the picker holds ids. */}
          <AutocompleteArrayInput label={label} validate={validate} disabled={disabled} helperText={helperText} fullWidth format={idsOf} />
        </ReferenceArrayInput>
      );
    case 'reference': {
      // A project picker remembers the project chosen (spec §4: kept for many entities), and the
      // everyday records start from it.
      const project =
        spec.resource === 'projects' ? { defaultValue: resource && KEEPS_PROJECT.has(resource) ? storedProject() : undefined, onChange: rememberProject } : {};
      // react-admin leaves the chosen record out of the options (filterSelectedOptions): typing over
      // a chosen "Responders 1" to find "Responders 2", the search answered only the chosen one and
      // the picker said "No options". The chosen record stays listed instead.
      return (
        <ReferenceInput source={source} reference={spec.resource!} sort={referenceSort(spec.resource!)} filter={spec.referenceFilter}>
          <AutocompleteInput
            label={label}
            validate={validate}
            disabled={disabled}
            helperText={helperText}
            fullWidth
            filterSelectedOptions={false}
            {...project}
          />
        </ReferenceInput>
      );
    }
    case 'enum':
      return <SelectInput {...common} choices={spec.choices ?? []} emptyText={spec.required ? undefined : '—'} />;
    case 'enums':
      return <SelectArrayInput {...common} choices={spec.choices ?? []} />;
    case 'boolean':
      return <BooleanInput source={source} label={label} disabled={disabled} helperText={helperText} />;
    case 'list':
      // A list of records (key results, checklist steps, custom fields): one row of inputs each.
      return (
        <ArrayInput source={source} label={label} helperText={helperText}>
          <SimpleFormIterator inline disableReordering disableAdd={disabled} disableRemove={disabled}>
            {(spec.items ?? []).map((item) => (
              <FieldInput key={item.name} spec={item} source={item.name} disabled={disabled} />
            ))}
          </SimpleFormIterator>
        </ArrayInput>
      );
    case 'number':
      return <NumberInput {...common} />;
    case 'date':
      // The browser's input holds local time without an offset; the API takes ISO date-times with one.
      return <DateTimeInput {...common} parse={(v: string) => (v ? new Date(v).toISOString() : null)} />;
    case 'strings':
      return <TextArrayInput source={source} label={label} disabled={disabled} helperText={helperText ?? 'Press Enter after each value'} fullWidth />;
    case 'json': {
      const json = jsonCodec(spec.empty);
      return (
        <TextInput
          {...common}
          helperText={helperText ?? 'JSON'}
          validate={[...validate, json.validate]}
          format={json.format}
          parse={json.parse}
          multiline
          minRows={3}
          fullWidth
        />
      );
    }
    case 'password':
      return <TextInput {...common} type="password" />;
    case 'markdown':
    case 'longtext':
      return <TextInput {...common} multiline minRows={3} fullWidth />;
    case 'color':
      return <TextInput {...common} helperText={helperText ?? 'A colour like #1565C0'} />;
    case 'email':
      return <TextInput {...common} type="email" />;
    case 'url':
      return <TextInput {...common} type="url" fullWidth />;
    default:
      return <TextInput {...common} fullWidth={(spec.maxLength ?? 0) > 200} />;
  }
}
