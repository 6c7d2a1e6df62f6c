import { useState, type ReactNode } from 'react';
import { Button, Dialog, DialogActions, DialogContent, DialogTitle, MenuItem, Stack, TextField, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import type { ItemsPage } from '../core/dataProvider.js';
import { useFirewatchData, useRecordView } from '../core/queries.js';
import { Section, type ApiRecord } from './parts.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- answers come straight from the API */
const COMPONENT_STATUSES = ['operational', 'degraded_performance', 'partial_outage', 'major_outage', 'under_maintenance'];
const PAGE_STATUSES = ['investigating', 'identified', 'monitoring', 'resolved'];

/** One outside record's row: its label, its link (shown as `text`, else the address) or a dash, and any actions. */
function LinkRow({ label, href, text, children }: { label: string; href?: string; text?: string; children?: ReactNode }) {
  return (
    <Typography variant="body2">
      {label}:{' '}
      {href ? (
        <a href={href} target="_blank" rel="noreferrer">
          {text ?? href}
        </a>
      ) : (
        '—'
      )}{' '}
      {children}
    </Typography>
  );
}

/** The incident's outside records: its ticket, its status page post (with the preview), and suspect commits. */
export function OutsidePanel({ incident, act }: { incident: ApiRecord; act: (path: string, init?: RequestInit & { json?: unknown }) => Promise<boolean> }) {
  const translate = useTranslate();
  const t = (key: string, fallback: string) => translate(`fw.outside.${key}`, { _: fallback });
  const [preview, setPreview] = useState<any>(null);
  const [draft, setDraft] = useState<any>(null);
  const dataProvider = useFirewatchData();
  // Suspect commits are a hint: none shown when they cannot be read.
  const suspects = useRecordView<ItemsPage<any>>('iaos', incident.id, 'suspect-commits').data?.items ?? [];
  const open = async () => {
    const { data: p } = await dataProvider.view<any>('iaos', { id: incident.id, path: 'statuspage/preview' });
    setPreview(p);
    setDraft({ name: p.name, status: p.status, body: p.body, components: Object.fromEntries(p.components.map((c: any) => [c.id, c.proposed])) });
  };
  const post = async () => {
    if (await act(`/iaos/${incident.id}/statuspage`, { method: 'POST', json: draft })) setPreview(null);
  };
  const ticket = incident.ticket as any;
  const page = incident.statuspage as any;
  return (
    <Section title={t('title', 'Outside')}>
      <Stack spacing={1}>
        <LinkRow label={t('ticket', 'Ticket')} href={ticket?.weblink} text={ticket?.name} />
        <LinkRow label={t('statuspage', 'Status page')} href={page?.weblink}>
          <Button size="small" onClick={() => void open().catch((e: Error) => setPreview({ error: e.message }))}>
            {t('post', 'Post to status page')}
          </Button>
        </LinkRow>
        {suspects.length > 0 && (
          <>
            <Typography variant="subtitle2">{t('suspects', 'Commits just before it started')}</Typography>
            {suspects.map((c) => (
              <Typography key={c.commit_id} variant="body2">
                {c.minutes_before} min · {c.commit_author ?? ''} · {String(c.commit_message ?? '').split('\n')[0]} ({c.commit_id.slice(0, 7)})
              </Typography>
            ))}
          </>
        )}
      </Stack>
      <Dialog open={!!preview} onClose={() => setPreview(null)} fullWidth maxWidth="md">
        <DialogTitle>{t('post', 'Post to status page')}</DialogTitle>
        <DialogContent>
          {preview?.error ? (
            <Typography color="error">{preview.error}</Typography>
          ) : (
            draft && (
              <Stack spacing={2} sx={{ mt: 1 }}>
                <TextField label={t('public_title', 'Public title')} value={draft.name} onChange={(e) => setDraft({ ...draft, name: e.target.value })} />
                <TextField select label={t('page_status', 'Status')} value={draft.status} onChange={(e) => setDraft({ ...draft, status: e.target.value })}>
                  {PAGE_STATUSES.map((s) => (
                    <MenuItem key={s} value={s}>
                      {s}
                    </MenuItem>
                  ))}
                </TextField>
                <TextField
                  multiline
                  minRows={3}
                  label={t('public_body', 'Public message')}
                  value={draft.body}
                  onChange={(e) => setDraft({ ...draft, body: e.target.value })}
                />
                {preview.components.map((c: any) => (
                  <TextField
                    key={c.id}
                    select
                    label={`${c.name} (${t('now', 'now')}: ${c.status})`}
                    value={draft.components[c.id]}
                    onChange={(e) => setDraft({ ...draft, components: { ...draft.components, [c.id]: e.target.value } })}
                  >
                    {COMPONENT_STATUSES.map((s) => (
                      <MenuItem key={s} value={s}>
                        {s}
                      </MenuItem>
                    ))}
                  </TextField>
                ))}
                <Typography variant="caption">
                  {t('internal', 'Internal notes (not posted)')}: {preview.internal_notes ?? '—'}
                </Typography>
              </Stack>
            )
          )}
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setPreview(null)}>{t('cancel', 'Cancel')}</Button>
          <Button variant="contained" disabled={!draft || !!preview?.error} onClick={() => void post()}>
            {preview?.posted ? t('update', 'Post update') : t('post', 'Post to status page')}
          </Button>
        </DialogActions>
      </Dialog>
    </Section>
  );
}
