import { useState } from 'react';
import { Alert, Box, Button, Card, CardContent, Link as MuiLink, Typography } from '@mui/material';
import { Link } from 'react-router-dom';
import { useWatch } from 'react-hook-form';
import { CreateBase, SaveButton, SimpleForm, Title, Toolbar, useBasename, useGetOne, useNotify, useTranslate } from 'react-admin';
import { fieldSpecs, metaOf } from '../core/meta.js';
import { FieldInput } from '../engine/inputs.js';
import { KINDS, viewPath } from './kinds.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- records come straight from the API */
type Reported = Record<string, any>;

/**
 * iaos/report and cases/report: the short form anyone in the organization fills in to report an
 * incident or a case (the create body's inputs, only the fields a reporter knows). Once sent, it
 * polls the record every 5 s until its conversation (and, for an incident, its conference) exists
 * (spec §4), then says where to go.
 */
export function ReportPage({ resource }: { resource: 'iaos' | 'cases' }) {
  const kind = KINDS[resource];
  const translate = useTranslate();
  const notify = useNotify();
  const [reported, setReported] = useState<Reported | null>(null);
  const [attempt, setAttempt] = useState(0);
  const t = (key: string, options?: Record<string, unknown>) => translate(`fw.responder.${key}`, options);
  const meta = metaOf(resource);
  const specs = meta ? fieldSpecs(meta, meta.create) : [];
  const fields = kind.reportFields.map((name) => specs.find((s) => s.name === name)).filter((s) => s !== undefined);
  const title = t(`report_title.${resource}`);

  return (
    <Box sx={{ p: 2, maxWidth: 900 }}>
      <Title title={title} />
      <Typography variant="h5" component="h1" sx={{ mb: 2 }}>
        {title}
      </Typography>
      {reported ? (
        <Reported resource={resource} record={reported} onAgain={() => (setReported(null), setAttempt(attempt + 1))} />
      ) : (
        <Card>
          <CardContent>
            <Typography sx={{ mb: 1 }}>{t(`report_intro.${resource}`)}</Typography>
            <CreateBase
              key={attempt}
              resource={resource}
              redirect={false}
              mutationOptions={{
                onSuccess: (data: Reported) => {
                  notify('fw.created', { type: 'success', messageArgs: { name: kind.entity } });
                  setReported(data);
                },
              }}
            >
              <SimpleForm
                noValidate
                toolbar={
                  <Toolbar>
                    <SaveButton alwaysEnable label={t('send')} />
                  </Toolbar>
                }
              >
                {fields.map((s) => (
                  <FieldInput key={s.name} spec={s} />
                ))}
                <VisibilityNote resource={resource} />
              </SimpleForm>
            </CreateBase>
          </CardContent>
        </Card>
      )}
    </Box>
  );
}

const TYPES = { iaos: { field: 'incident_type_id', types: 'incident_types' }, cases: { field: 'case_type_id', types: 'case_types' } } as const;

/**
 * Who will see the record, before it is sent: the chosen type's visibility, which the server applies
 * (a Restricted type makes the record Restricted, server/incidents/defaults.ts restrictedTypes).
 */
function VisibilityNote({ resource }: { resource: 'iaos' | 'cases' }) {
  const translate = useTranslate();
  const { field, types } = TYPES[resource];
  const typeId = useWatch({ name: field }) as number | null | undefined;
  const { data: type, isError } = useGetOne<{ id: number; visibility?: string }>(types, { id: typeId ?? undefined }, { enabled: !!typeId, retry: false });
  const visibility = typeId && type && !isError ? (type.visibility ?? 'Open') : null;
  if (!visibility) return null;
  const restricted = visibility === 'Restricted';
  return (
    <Alert severity={restricted ? 'warning' : 'info'} role="status" sx={{ mt: 1, width: '100%' }}>
      {translate(`fw.responder.${restricted ? 'visibility_restricted' : 'visibility_open'}`)}
    </Alert>
  );
}

/** After sending: the new record's name, then its conversation and conference once the background job made them. */
function Reported({ resource, record, onAgain }: { resource: 'iaos' | 'cases'; record: Reported; onAgain: () => void }) {
  const kind = KINDS[resource];
  const translate = useTranslate();
  const basename = useBasename();
  // Spec §4: polled until the conversation (and an incident's conference) exists.
  const isReady = (r: Reported | undefined) => !!r?.conversation && (resource === 'cases' || !!r.conference);
  const { data: full = record } = useGetOne<Reported & { id: number }>(
    resource,
    { id: record.id },
    { initialData: record as Reported & { id: number }, refetchInterval: (query) => (isReady(query.state.data) ? false : 5000) },
  );
  const ready = isReady(full);
  const t = (key: string, options?: Record<string, unknown>) => translate(`fw.responder.${key}`, options);
  return (
    <Card>
      <CardContent>
        <Alert severity="success" sx={{ mb: 2 }}>
          {t(`reported.${resource}`, { name: record.name })}
        </Alert>
        <Typography role="status" sx={{ mb: 2 }}>
          {ready ? t('conversation_ready') : t('conversation_pending')}
          {ready && full.conference_url ? (
            <>
              {' '}
              <MuiLink href={full.conference_url} target="_blank" rel="noreferrer">
                {t('conference')}
              </MuiLink>
            </>
          ) : null}
        </Typography>
        <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap' }}>
          <Button variant="contained" component={Link} to={`${basename}${viewPath(kind, String(record.name))}`}>
            {t('open_record', { name: record.name })}
          </Button>
          <Button variant="outlined" component={Link} to={`${basename}/${resource}/status`}>
            {t(`status_title.${resource}`)}
          </Button>
          <Button onClick={onAgain}>{t('report_another')}</Button>
        </Box>
      </CardContent>
    </Card>
  );
}
