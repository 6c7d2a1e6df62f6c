import { useState } from 'react';
import { Button } from '@mui/material';
import { Link } from 'react-router-dom';
import { TopToolbar, useBasename, useNotify, useRecordContext, useRefresh, type RaRecord } from 'react-admin';
import type { ResourceMeta } from '../core/meta-types.js';
import { useFirewatchData } from '../core/queries.js';
import { ConfirmDialog } from './ConfirmDialog.js';

/** A button on a record's screen that calls `{path}/{id}/{action}` (spec §7 actions beyond CRUD). */
export interface RecordAction {
  label: string;
  action: string;
  method?: 'POST' | 'PUT';
  /** When the button applies, e.g. only open tasks can be resolved. */
  when?: (record: RaRecord) => boolean;
  /** Shown when the server answers without a message. */
  success?: string;
  /** A link instead of a call: the record's own screen, e.g. `/iaos/IAO-3/view`. */
  to?: (record: RaRecord) => string;
  /** Asked first (status changes, escalation): the call runs only once confirmed. */
  confirm?: string;
}

export function RecordActions({ meta, actions }: { meta: ResourceMeta; actions: RecordAction[] }) {
  const record = useRecordContext();
  const notify = useNotify();
  const refresh = useRefresh();
  const basename = useBasename();
  const dataProvider = useFirewatchData();
  const [busy, setBusy] = useState<string | null>(null);
  const [asking, setAsking] = useState<RecordAction | null>(null);
  if (!record) return <TopToolbar />;
  const run = async (a: RecordAction) => {
    setBusy(a.action);
    try {
      const { data: answer } = await dataProvider.action(meta.name, { id: record.id, path: a.action, method: a.method ?? 'POST' });
      notify(answer?.message ?? a.success ?? 'Done.', { type: 'success' });
      refresh();
    } catch (error) {
      notify((error as Error).message, { type: 'error', autoHideDuration: 0 });
    } finally {
      setBusy(null);
    }
  };
  return (
    <TopToolbar>
      {actions
        .filter((a) => !a.when || a.when(record))
        .map((a) =>
          a.to ? (
            <Button key={a.action} size="small" component={Link} to={`${basename}${a.to(record)}`}>
              {a.label}
            </Button>
          ) : (
            <Button key={a.action} variant="outlined" size="small" disabled={busy !== null} onClick={() => (a.confirm ? setAsking(a) : void run(a))}>
              {a.label}
            </Button>
          ),
        )}
      {asking ? (
        <ConfirmDialog title={asking.confirm!} body={asking.label} confirm={asking.label} onClose={() => setAsking(null)} onConfirm={() => run(asking)} />
      ) : null}
    </TopToolbar>
  );
}
