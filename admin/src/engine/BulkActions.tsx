import { useState } from 'react';
import {
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  LinearProgress,
  MenuItem,
  TextField,
  Typography,
} from '@mui/material';
import { useListContext, useNotify, useRefresh, useTranslate } from 'react-admin';
import type { FieldMeta } from '../core/meta-types.js';
import { useFirewatchData } from '../core/queries.js';
import { useCanWrite, useMeta } from './screens.js';

/** Field kinds a bulk edit can set to one value for every selected row. */
const EDITABLE_KINDS = new Set(['enum', 'text', 'email', 'number', 'boolean', 'date']);

interface Outcome {
  ok: number;
  failed: { id: unknown; message: string }[];
}

type R = (key: string, options?: Record<string, unknown>) => string;

/** The field to set and the value every selected row gets. */
function BulkEditInputs({
  fields,
  field,
  setField,
  value,
  setValue,
  disabled,
  r,
}: {
  fields: FieldMeta[];
  field: string;
  setField: (name: string) => void;
  value: string;
  setValue: (value: string) => void;
  disabled: boolean;
  r: R;
}) {
  const spec = fields.find((f) => f.name === field);
  return (
    <>
      <TextField
        select
        label={r('bulk_field')}
        value={field}
        onChange={(e) => (setField(e.target.value), setValue(''))}
        fullWidth
        sx={{ mt: 1 }}
        disabled={disabled}
      >
        {fields.map((f) => (
          <MenuItem key={f.name} value={f.name}>
            {f.label}
          </MenuItem>
        ))}
      </TextField>
      {spec ? (
        spec.kind === 'enum' || spec.kind === 'boolean' ? (
          <TextField select label={r('bulk_value')} value={value} onChange={(e) => setValue(e.target.value)} fullWidth sx={{ mt: 2 }} disabled={disabled}>
            {(spec.kind === 'boolean'
              ? [
                  { id: 'true', name: 'Yes' },
                  { id: 'false', name: 'No' },
                ]
              : (spec.choices ?? [])
            ).map((c) => (
              <MenuItem key={c.id} value={c.id}>
                {c.name}
              </MenuItem>
            ))}
          </TextField>
        ) : (
          <TextField
            label={r('bulk_value')}
            type={spec.kind === 'number' ? 'number' : spec.kind === 'date' ? 'datetime-local' : 'text'}
            value={value}
            onChange={(e) => setValue(e.target.value)}
            fullWidth
            sx={{ mt: 2 }}
            disabled={disabled}
            slotProps={{ inputLabel: { shrink: true } }}
          />
        )
      ) : null}
    </>
  );
}

/** The progress through the selected rows, then what worked and what failed, and why. */
function BulkProgress({ done, total, outcome, mode, r }: { done: number; total: number; outcome: Outcome | null; mode: 'edit' | 'delete' | null; r: R }) {
  return (
    <>
      <Box sx={{ mt: 2 }}>
        <LinearProgress variant="determinate" value={(done / Math.max(total, 1)) * 100} aria-label={r('bulk_progress', { done, total })} />
        <Typography variant="body2" sx={{ mt: 1 }} role="status">
          {r('bulk_progress', { done, total })}
        </Typography>
      </Box>
      {outcome ? (
        <Box sx={{ mt: 2 }} data-testid="bulk-summary">
          <Typography variant="body1">
            {r(mode === 'delete' ? 'bulk_summary_deleted' : 'bulk_summary', { ok: outcome.ok, failed: outcome.failed.length })}
          </Typography>
          {outcome.failed.map((f) => (
            <Typography key={String(f.id)} variant="body2" color="error">
              {r('failed_rows')} #{String(f.id)}: {f.message}
            </Typography>
          ))}
        </Box>
      ) : null}
    </>
  );
}

/**
 * Spec §7 bulk edit and delete: one API call per selected row (the API has no batch route), in
 * order, with a progress bar, then a summary of what worked and what failed, and why.
 */
export function BulkActions() {
  const meta = useMeta();
  const canWrite = useCanWrite(meta);
  const { selectedIds, onUnselectItems } = useListContext();
  const translate = useTranslate();
  const notify = useNotify();
  const refresh = useRefresh();
  const dataProvider = useFirewatchData();
  const r = (key: string, options?: Record<string, unknown>) => translate(`fw.room.${key}`, options);
  const [mode, setMode] = useState<null | 'edit' | 'delete'>(null);
  const updatable = new Set(Object.keys((meta.update as { properties?: Record<string, unknown> }).properties ?? {}));
  const fields = meta.fields.filter((f) => f.form && EDITABLE_KINDS.has(f.kind) && updatable.has(f.name));
  const [field, setField] = useState('');
  const [value, setValue] = useState('');
  const [done, setDone] = useState(0);
  const [running, setRunning] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const ids = [...selectedIds];
  const spec = fields.find((f) => f.name === field);

  const close = () => {
    if (running) return;
    if (outcome) {
      onUnselectItems();
      refresh();
    }
    setMode(null);
    setOutcome(null);
    setDone(0);
    setField('');
    setValue('');
  };
  const run = async () => {
    setRunning(true);
    setDone(0);
    const result: Outcome = { ok: 0, failed: [] };
    const typed = spec?.kind === 'number' ? Number(value) : spec?.kind === 'boolean' ? value === 'true' : value === '' ? null : value;
    for (const id of ids) {
      try {
        // The value as chosen, null included: the provider's update would drop a null it takes for a blank field.
        if (mode === 'edit') await dataProvider.action(meta.name, { id, method: 'PUT', data: { [field]: typed } });
        else await dataProvider.delete(meta.name, { id });
        result.ok++;
      } catch (e) {
        result.failed.push({ id, message: (e as Error).message });
      }
      setDone((d) => d + 1);
    }
    setOutcome(result);
    setRunning(false);
    if (result.ok) notify(translate(mode === 'edit' ? 'fw.room.updated_many' : 'fw.room.deleted_many', { name: meta.label }), { type: 'success' });
  };

  if (!canWrite) return null;
  return (
    <>
      {meta.routes.update && fields.length ? (
        <Button size="small" onClick={() => setMode('edit')}>
          {r('bulk_edit')}
        </Button>
      ) : null}
      {meta.routes.delete ? (
        <Button size="small" color="error" onClick={() => setMode('delete')}>
          {r('bulk_delete')}
        </Button>
      ) : null}
      <Dialog open={mode !== null} onClose={close} aria-labelledby="bulk-title" fullWidth>
        <DialogTitle id="bulk-title">{r(mode === 'delete' ? 'bulk_delete_title' : 'bulk_edit_title', { smart_count: ids.length })}</DialogTitle>
        <DialogContent>
          {mode === 'delete' ? <DialogContentText>{r('bulk_delete_body')}</DialogContentText> : null}
          {mode === 'edit' ? (
            <BulkEditInputs fields={fields} field={field} setField={setField} value={value} setValue={setValue} disabled={running || !!outcome} r={r} />
          ) : null}
          {running || outcome ? <BulkProgress done={done} total={ids.length} outcome={outcome} mode={mode} r={r} /> : null}
        </DialogContent>
        <DialogActions>
          <Button onClick={close} disabled={running}>
            {outcome ? translate('fw.responder.close') : r('cancel')}
          </Button>
          {outcome ? null : (
            <Button
              variant="contained"
              color={mode === 'delete' ? 'error' : 'primary'}
              disabled={running || (mode === 'edit' && (!spec || (value === '' && spec.kind !== 'text')))}
              onClick={() => void run()}
            >
              {mode === 'delete' ? r('bulk_delete') : r('bulk_apply')}
            </Button>
          )}
        </DialogActions>
      </Dialog>
    </>
  );
}
