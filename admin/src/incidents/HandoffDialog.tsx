import { useEffect, useState } from 'react';
import { Button, Dialog, DialogActions, DialogContent, DialogTitle, Grid, TextField } from '@mui/material';
import { useNotify, useRefresh, useTranslate } from 'react-admin';
import { useFirewatchData } from '../core/queries.js';

/** The handoff fields the dialog edits, in order; the long ones are multi-line. */
const FIELDS = [
  'handover_from',
  'handover_to',
  'start_time',
  'end_time',
  'shift_type',
  'critical_ongoing_issues',
  'pending_tasks',
  'tasks_completed',
  'mentions',
  'tools_and_access',
] as const;
type Field = (typeof FIELDS)[number];
const LONG = new Set<Field>(['critical_ongoing_issues', 'pending_tasks', 'tasks_completed', 'tools_and_access']);
const TIMES = new Set<Field>(['start_time', 'end_time']);

/** ISO instant ↔ the value of a datetime-local input, both in UTC (spec §9 shows UTC). */
const toInput = (iso: unknown) => (typeof iso === 'string' && iso ? iso.slice(0, 16) : '');
const fromInput = (value: string) => (value ? `${value}:00Z` : null);

/**
 * The on-call handoff dialog. It starts from the server's prefill (the caller's shift and its
 * ongoing incidents, or one incident, with their pending and completed tasks) and writes an
 * /oncall/handoffs record: from an incident through POST /iaos/{id}/handoff, which also notes it on
 * the incident's timeline.
 */
export function HandoffDialog({ incidentId, onClose, onDone }: { incidentId?: number; onClose: () => void; onDone?: () => unknown }) {
  const translate = useTranslate();
  const notify = useNotify();
  const dataProvider = useFirewatchData();
  const [values, setValues] = useState<Partial<Record<Field, string>> | null>(null);
  const [busy, setBusy] = useState(false);
  const [touched, setTouched] = useState(false);
  useEffect(() => {
    void dataProvider.view<Record<string, unknown>>('oncall/handoffs', { path: 'prefill', query: incidentId ? { incident_id: incidentId } : undefined }).then(
      ({ data: p }) => setValues(Object.fromEntries(FIELDS.map((f) => [f, TIMES.has(f) ? toInput(p[f]) : String(p[f] ?? '')]))),
      (e: Error) => {
        notify(e.message, { type: 'error', autoHideDuration: 0 });
        setValues({});
      },
    );
  }, [dataProvider, incidentId, notify]);
  const missingTo = !values?.handover_to?.trim();

  const save = async () => {
    setTouched(true);
    if (!values || missingTo || !values.handover_from?.trim()) return;
    setBusy(true);
    const body: Record<string, unknown> = {};
    for (const f of FIELDS) {
      const v = values[f]?.trim() ?? '';
      if (TIMES.has(f)) body[f] = fromInput(v);
      else if (v) body[f] = v;
    }
    try {
      if (incidentId) await dataProvider.action('iaos', { id: incidentId, path: 'handoff', data: body });
      else await dataProvider.create('oncall/handoffs', { data: body });
      notify('fw.created', { type: 'success', messageArgs: { name: translate('fw.responder.handoff_entity') } });
      await onDone?.();
      onClose();
    } catch (e) {
      notify((e as Error).message, { type: 'error', autoHideDuration: 0 });
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog open onClose={onClose} aria-labelledby="handoff-title" fullWidth maxWidth="md">
      <DialogTitle id="handoff-title">{translate('fw.responder.handoff_title')}</DialogTitle>
      <DialogContent>
        {values ? (
          <Grid container spacing={2} sx={{ mt: 0.5 }}>
            {FIELDS.map((f) => {
              const required = f === 'handover_from' || f === 'handover_to';
              const empty = required && !values[f]?.trim();
              return (
                <Grid key={f} size={{ xs: 12, md: LONG.has(f) ? 12 : 6 }}>
                  <TextField
                    label={translate(`fw.responder.handoff_fields.${f}`)}
                    value={values[f] ?? ''}
                    onChange={(e) => setValues({ ...values, [f]: e.target.value })}
                    required={required}
                    error={touched && empty}
                    helperText={touched && empty ? translate('ra.validation.required') : undefined}
                    type={TIMES.has(f) ? 'datetime-local' : 'text'}
                    multiline={LONG.has(f)}
                    minRows={LONG.has(f) ? 2 : undefined}
                    fullWidth
                    slotProps={TIMES.has(f) ? { inputLabel: { shrink: true } } : undefined}
                  />
                </Grid>
              );
            })}
          </Grid>
        ) : (
          translate('fw.responder.loading')
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{translate('ra.action.cancel')}</Button>
        <Button variant="contained" disabled={!values || busy} onClick={() => void save()}>
          {translate('fw.responder.hand_off')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

/** "Shift handoff" above the handoffs list: the dialog prefilled from the caller's shift; the list reloads after. */
export function ShiftHandoffButton() {
  const translate = useTranslate();
  const refresh = useRefresh();
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button size="small" onClick={() => setOpen(true)}>
        {translate('fw.responder.shift_handoff')}
      </Button>
      {open ? <HandoffDialog onClose={() => setOpen(false)} onDone={refresh} /> : null}
    </>
  );
}
