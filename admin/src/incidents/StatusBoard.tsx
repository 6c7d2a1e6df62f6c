import {
  Box,
  Button,
  Card,
  CardContent,
  CardHeader,
  Chip,
  Grid,
  Link as MuiLink,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import { Link } from 'react-router-dom';
import { Title, useBasename, useGetList, useTranslate } from 'react-admin';
import { humanize } from '../core/meta.js';
import { utc } from '../engine/screens.js';
import { KINDS, viewPath, type RecordKind } from './kinds.js';

/** The board reloads on its own at this pace (it is left open on a wall screen). */
const REFRESH_MS = 30_000;
/** At most this many ongoing records are listed. */
const BOARD_SIZE = 100;

/**
 * iaos/status and cases/status: every ongoing incident (Active, Stable) or case (New, Triage,
 * Escalated, Stable) the caller may see, grouped by status, newest first, each linking to its view.
 */
export function StatusBoard({ resource }: { resource: 'iaos' | 'cases' }) {
  const kind = KINDS[resource];
  const translate = useTranslate();
  const basename = useBasename();
  const {
    data = [],
    total,
    isPending,
    error,
    dataUpdatedAt,
  } = useGetList(
    kind.resource,
    { filter: { status: kind.ongoing }, sort: { field: 'reported_at', order: 'DESC' }, pagination: { page: 1, perPage: BOARD_SIZE } },
    { refetchInterval: REFRESH_MS },
  );
  const t = (key: string, options?: Record<string, unknown>) => translate(`fw.responder.${key}`, options);
  const title = t(`status_title.${resource}`);
  return (
    <Box sx={{ p: 2 }}>
      <Title title={title} />
      <Box sx={{ display: 'flex', alignItems: 'center', flexWrap: 'wrap', gap: 2, mb: 2 }}>
        <Typography variant="h5" component="h1" sx={{ flex: 1 }}>
          {title}
        </Typography>
        {dataUpdatedAt ? <Typography variant="body2">{t('updated_at', { at: utc(new Date(dataUpdatedAt)) })}</Typography> : null}
        <Button variant="contained" component={Link} to={`${basename}/${resource}/report`}>
          {t(`report_title.${resource}`)}
        </Button>
      </Box>
      {error ? (
        <Typography role="alert">{(error as Error).message}</Typography>
      ) : isPending ? (
        <Typography>{t('loading')}</Typography>
      ) : !data.length ? (
        <Typography>{t(`none_ongoing.${resource}`)}</Typography>
      ) : (
        <>
          <Typography variant="body2" sx={{ mb: 2 }}>
            {t(`ongoing_count.${resource}`, { smart_count: total ?? data.length })}
          </Typography>
          <Grid container spacing={2}>
            {kind.ongoing.map((status) => (
              <Grid key={status} size={12}>
                <StatusGroup kind={kind} status={status} records={data.filter((r) => r.status === status)} />
              </Grid>
            ))}
          </Grid>
        </>
      )}
    </Box>
  );
}

function StatusGroup({ kind, status, records }: { kind: RecordKind; status: string; records: Record<string, unknown>[] }) {
  const translate = useTranslate();
  const basename = useBasename();
  if (!records.length) return null;
  const caption = `${status} (${records.length})`;
  return (
    <Card>
      <CardHeader title={caption} titleTypographyProps={{ variant: 'h6', component: 'h2' }} sx={{ pb: 0 }} />
      <CardContent>
        <Table size="small" aria-label={caption}>
          <TableHead>
            <TableRow>
              <TableCell>{translate('fw.responder.name')}</TableCell>
              <TableCell>{translate('fw.responder.title')}</TableCell>
              {kind.columns.map((c) => (
                <TableCell key={c}>{humanize(c.replace(/_name$/, ''))}</TableCell>
              ))}
            </TableRow>
          </TableHead>
          <TableBody>
            {records.map((r) => (
              <TableRow key={String(r.id)}>
                <TableCell>
                  <MuiLink component={Link} to={`${basename}${viewPath(kind, String(r.name))}`}>
                    {String(r.name)}
                  </MuiLink>
                </TableCell>
                <TableCell>{String(r.title)}</TableCell>
                {kind.columns.map((c) => (
                  <TableCell key={c}>
                    {c.endsWith('_at') ? utc(r[c]) : c.endsWith('_priority_name') && r[c] ? <Chip size="small" label={String(r[c])} /> : String(r[c] ?? '–')}
                  </TableCell>
                ))}
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </CardContent>
    </Card>
  );
}
