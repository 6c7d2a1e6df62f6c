import { useState } from 'react';
import { Button, Checkbox, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle, FormControlLabel, FormGroup } from '@mui/material';
import { defaultExporter, useDataProvider, useListContext, useNotify, useResourceContext, useTranslate } from 'react-admin';
import { labelOf, metaOf } from '../core/meta.js';
import { utc } from './screens.js';

/** The most rows one export takes (the API's largest page). */
export const EXPORT_LIMIT = 10_000;

/** Columns an export may hold: the list record's own fields (its table columns and computed names). */
function exportColumns(resource: string) {
  const meta = metaOf(resource);
  if (!meta) return [];
  const names = [...meta.columns.map((c) => c.name), ...meta.filterFields].filter((n, i, all) => n !== 'organization_id' && all.indexOf(n) === i);
  return names.map((name) => ({ name, date: meta.columns.find((c) => c.name === name)?.type === 'date' }));
}

const cell = (value: unknown, date: boolean) => {
  if (value === null || value === undefined) return '';
  if (date) return utc(value);
  if (Array.isArray(value)) return value.join(', ');
  return typeof value === 'object' ? JSON.stringify(value) : (value as string | number | boolean);
};

/**
 * The export dialog above a list: the rows of the current filter and sort (at most 10,000) as CSV,
 * with the columns the user keeps ticked, headed by their labels. The CSV is written by
 * react-admin's exporter (jsonexport) and downloaded as {resource}-{date}.csv.
 */
export function ExportButton() {
  const resource = useResourceContext()!;
  const { filter, filterValues, sort, total } = useListContext();
  const dataProvider = useDataProvider();
  const notify = useNotify();
  const translate = useTranslate();
  const columns = exportColumns(resource);
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [kept, setKept] = useState<Set<string>>(() => new Set(columns.map((c) => c.name)));
  const rows = Math.min(total ?? 0, EXPORT_LIMIT);

  const run = async () => {
    setBusy(true);
    try {
      const { data } = await dataProvider.getList(resource, {
        pagination: { page: 1, perPage: Math.max(rows, 1) },
        sort,
        filter: { ...filterValues, ...filter },
      });
      const chosen = columns.filter((c) => kept.has(c.name));
      const lines = data.map((record) => Object.fromEntries(chosen.map((c) => [labelOf(metaOf(resource), c.name), cell(record[c.name], c.date)])));
      defaultExporter(lines, () => Promise.resolve({}), dataProvider, `${resource.replace(/\//g, '-')}-${new Date().toISOString().slice(0, 10)}`);
      notify('fw.responder.exported', { type: 'success', messageArgs: { smart_count: data.length } });
      setOpen(false);
    } catch (e) {
      notify((e as Error).message, { type: 'error', autoHideDuration: 0 });
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <Button size="small" onClick={() => setOpen(true)}>
        {translate('ra.action.export')}
      </Button>
      <Dialog open={open} onClose={() => setOpen(false)} aria-labelledby="export-title" fullWidth>
        <DialogTitle id="export-title">{translate('fw.responder.export_title')}</DialogTitle>
        <DialogContent>
          <DialogContentText>
            {translate('fw.responder.export_rows', { smart_count: rows })}
            {(total ?? 0) > EXPORT_LIMIT ? ` ${translate('fw.responder.export_limit', { limit: EXPORT_LIMIT.toLocaleString('en-US') })}` : ''}
          </DialogContentText>
          <FormGroup aria-label={translate('fw.responder.export_columns')} sx={{ mt: 1, display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' } }}>
            {columns.map((c) => (
              <FormControlLabel
                key={c.name}
                label={labelOf(metaOf(resource), c.name)}
                control={
                  <Checkbox
                    // Named by its column (the theme's default checkbox name is "Select this row").
                    slotProps={{ input: { 'aria-label': labelOf(metaOf(resource), c.name) } }}
                    checked={kept.has(c.name)}
                    onChange={(e) => {
                      const next = new Set(kept);
                      if (e.target.checked) next.add(c.name);
                      else next.delete(c.name);
                      setKept(next);
                    }}
                  />
                }
              />
            ))}
          </FormGroup>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setOpen(false)}>{translate('ra.action.cancel')}</Button>
          <Button variant="contained" disabled={busy || !rows || !kept.size} onClick={() => void run()}>
            {translate('fw.responder.download_csv')}
          </Button>
        </DialogActions>
      </Dialog>
    </>
  );
}
