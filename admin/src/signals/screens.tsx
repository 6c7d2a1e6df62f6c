import { useEffect, useState } from 'react';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  Chip,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  LinearProgress,
  Link,
  List,
  ListItem,
  ListItemText,
  TextField as MuiTextField,
  Typography,
} from '@mui/material';
import { FunctionField, useNotify, useRecordContext, type RaRecord } from 'react-admin';
import { GenericEdit, GenericList } from '../engine/screens.js';
import { SignalSetup, SourcePanel } from './setup.js';
import type { ItemsPage } from '../core/dataProvider.js';
import { useFirewatchData } from '../core/queries.js';
import { organization } from '../core/org.js';
import type { Screens } from '../engine/registry.js';

/**
 * The signal screens beyond the generic ones: the raw signal view, the definition editor's live
 * extraction preview, the entity type back-test and re-processing, and the entity's case view.
 */

const panel = { width: 380, ml: 2, alignSelf: 'flex-start' } as const;
const pretty = (v: unknown) => JSON.stringify(v, null, 2);

interface InstanceDetail {
  id: number;
  raw: unknown;
  source: string;
  dedup_key: string | null;
  filter_action: string | null;
  case_id: number | null;
  entities: { id: number; value: string; entity_type: string }[];
}

/** The raw signal view dialog (spec §4): the payload as received, what was extracted, what was done. */
function RawSignalButton({ record }: { record: RaRecord }) {
  const [detail, setDetail] = useState<InstanceDetail | null>(null);
  const notify = useNotify();
  const dataProvider = useFirewatchData();
  const open = () =>
    dataProvider.view<InstanceDetail>('signals/instances', { id: record.id }).then(
      ({ data }) => setDetail(data),
      (e: Error) => notify(e.message, { type: 'error' }),
    );
  return (
    <>
      <Button
        size="small"
        onClick={(e) => {
          e.stopPropagation();
          void open();
        }}
      >
        Raw
      </Button>
      <Dialog
        open={detail !== null}
        onClose={() => setDetail(null)}
        maxWidth="md"
        fullWidth
        aria-labelledby="raw-signal-title"
        onClick={(e) => e.stopPropagation()}
      >
        <DialogTitle id="raw-signal-title">Raw signal {detail?.id}</DialogTitle>
        <DialogContent>
          <Box sx={{ mb: 1, display: 'flex', gap: 1, flexWrap: 'wrap' }}>
            <Chip size="small" label={`source: ${detail?.source}`} />
            <Chip size="small" label={`filter: ${detail?.filter_action ?? 'pending'}`} />
            {detail?.dedup_key ? <Chip size="small" label={`dedup key: ${detail.dedup_key}`} /> : null}
          </Box>
          <Typography variant="subtitle2">Entities</Typography>
          <Box sx={{ mb: 1, display: 'flex', gap: 1, flexWrap: 'wrap' }} aria-label="Entities">
            {detail?.entities.length ? (
              detail.entities.map((e) => (
                <Chip key={e.id} size="small" component="a" clickable href={`/${organization}/entity/${e.id}`} label={`${e.entity_type}: ${e.value}`} />
              ))
            ) : (
              <Typography variant="body2">None</Typography>
            )}
          </Box>
          <Box component="pre" aria-label="Raw payload" sx={{ fontSize: 12, bgcolor: 'action.hover', p: 1, overflow: 'auto', maxHeight: 400 }}>
            {pretty(detail?.raw)}
          </Box>
        </DialogContent>
        <DialogActions>
          {detail?.case_id ? <Button href={`/${organization}/cases/${detail.case_id}`}>Open case</Button> : null}
          <Button onClick={() => setDetail(null)}>Close</Button>
        </DialogActions>
      </Dialog>
    </>
  );
}

const SignalInstanceList = () => (
  <GenericList
    columns={['id', 'signal_id', 'source', 'dedup_key', 'event_action', 'filter_action', 'case_id', 'created_at', 'raw']}
    cells={{ raw: <FunctionField key="raw" source="raw" label="Raw" sortable={false} render={(record) => <RawSignalButton record={record} />} /> }}
  />
);

/** The definition editor's preview: paste a payload, see what the definition's entity types extract, as you type. */
function ExtractionPreview() {
  const record = useRecordContext();
  const [text, setText] = useState('');
  const [result, setResult] = useState<{ title: string; entities: { entity_type: string; value: string | null; error?: string }[] } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const dataProvider = useFirewatchData();
  useEffect(() => {
    if (!text.trim()) return setResult(null);
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      setError('Not JSON yet.');
      return;
    }
    const timer = setTimeout(() => {
      dataProvider.action<typeof result>('signals', { path: 'preview', data: { raw, entity_type_ids: record?.entity_type_ids ?? [] } }).then(
        ({ data }) => (setResult(data), setError(null)),
        (e: Error) => setError(e.message),
      );
    }, 300);
    return () => clearTimeout(timer);
  }, [text, record?.entity_type_ids, dataProvider]);
  return (
    <Card sx={panel}>
      <CardContent>
        <Typography variant="h6">Preview extraction</Typography>
        <MuiTextField
          label="Paste a payload (JSON)"
          multiline
          minRows={6}
          maxRows={16}
          fullWidth
          value={text}
          onChange={(e) => setText(e.target.value)}
          sx={{ my: 1 }}
        />
        {error ? <Alert severity="info">{error}</Alert> : null}
        {result ? (
          <Box aria-label="Preview result">
            <Typography variant="body2">
              Case title: <strong>{result.title}</strong>
            </Typography>
            <List dense>
              {result.entities.length ? (
                result.entities.map((e, i) => (
                  <ListItem key={i}>
                    <ListItemText primary={e.value ?? e.error} secondary={e.entity_type} />
                  </ListItem>
                ))
              ) : (
                <ListItem>
                  <ListItemText primary="No entity found" />
                </ListItem>
              )}
            </List>
          </Box>
        ) : null}
      </CardContent>
    </Card>
  );
}

interface BackTest {
  total: number;
  matched: number;
  top_values: { value: string; count: number }[];
}
interface Run {
  status: string;
  processed: number;
  total: number;
  matched: number;
  percent: number;
}

const runDone = (run: Run | undefined) => !run || run.status === 'completed' || run.status === 'failed';

/**
 * An entity type's view, read again when its saved pattern changes (the key holds the pattern).
 * The re-processing run is followed every second until it is over.
 */
function usePatternView<T>(record: RaRecord | undefined, path: 'backtest' | 'process') {
  const dataProvider = useFirewatchData();
  const key = ['entity_type', 'view', String(record?.id), path, record?.jpath, record?.regular_expression];
  const query = useQuery<T>({
    queryKey: key,
    queryFn: async ({ signal }) => (await dataProvider.view<T>('entity_type', { id: record!.id, path, signal })).data,
    enabled: !!record?.id,
    retry: false,
    placeholderData: keepPreviousData,
    refetchInterval: path === 'process' ? ({ state }) => (runDone(state.data as Run | undefined) ? false : 1000) : false,
  });
  return { ...query, key };
}

/** How the saved pattern does on the last 1,000 instances, and the re-extraction over all of them. */
function BackTestPanel() {
  const record = useRecordContext();
  const notify = useNotify();
  const dataProvider = useFirewatchData();
  const queryClient = useQueryClient();
  const { data: test } = usePatternView<BackTest>(record, 'backtest');
  const { data: run, key: runKey } = usePatternView<Run>(record, 'process');
  const reprocess = () =>
    dataProvider.action<Run>('entity_type', { id: record?.id, path: 'process', method: 'PUT' }).then(
      ({ data }) => queryClient.setQueryData(runKey, data),
      (e: Error) => notify(e.message, { type: 'error' }),
    );
  return (
    <Card sx={panel}>
      <CardContent>
        <Typography variant="h6">Back-test</Typography>
        {test ? (
          <>
            <Typography aria-label="Back-test result">
              This pattern matches {test.matched.toLocaleString('en')} of the last {test.total.toLocaleString('en')} signals.
            </Typography>
            <List dense>
              {test.top_values.map((v) => (
                <ListItem key={v.value}>
                  <ListItemText primary={v.value} secondary={`${v.count} signal(s)`} />
                </ListItem>
              ))}
            </List>
          </>
        ) : (
          <LinearProgress />
        )}
        <Button variant="outlined" sx={{ mt: 1 }} onClick={() => void reprocess()}>
          Re-process past signals
        </Button>
        {run ? (
          <Box sx={{ mt: 1 }} aria-label="Re-processing">
            <LinearProgress variant="determinate" value={run.percent} />
            <Typography variant="body2">
              {run.status}: {run.processed} of {run.total}, {run.matched} with a value
            </Typography>
          </Box>
        ) : null}
      </CardContent>
    </Card>
  );
}

interface SeenCase {
  id: number;
  name: string;
  title: string;
  status: string;
}

/** The entity case view: where else the value was seen ("seen in 3 open cases"). */
function EntityCases() {
  const record = useRecordContext();
  const notify = useNotify();
  const dataProvider = useFirewatchData();
  const seen = useQuery({
    queryKey: ['entity', 'view', String(record?.id), 'cases'],
    queryFn: async ({ signal }) =>
      (await dataProvider.view<ItemsPage<SeenCase>>('entity', { id: record!.id, path: 'cases', query: { itemsPerPage: 100 }, signal })).data,
    enabled: !!record?.id,
    retry: false,
  });
  // Nothing while reading; none on a failure.
  const cases = seen.isError ? [] : (seen.data?.items ?? null);
  const open = cases?.filter((c) => c.status !== 'Closed').length ?? 0;
  return (
    <Card sx={panel}>
      <CardContent>
        <Typography variant="h6" aria-label="Seen in">
          Seen in {open} open case{open === 1 ? '' : 's'}
          {cases && cases.length > open ? ` (${cases.length} in all)` : ''}
        </Typography>
        <List dense aria-label="Cases">
          {(cases ?? []).map((c) => (
            <ListItem key={c.id}>
              <ListItemText primary={<Link href={`/${organization}/cases/${c.name}/view`}>{c.name}</Link>} secondary={`${c.title} · ${c.status}`} />
            </ListItem>
          ))}
        </List>
        <Button
          variant="outlined"
          onClick={() =>
            dataProvider.action<{ message: string }>('entity', { id: record?.id, path: 'subscribe' }).then(
              ({ data }) => notify(data.message, { type: 'success' }),
              (e: Error) => notify(e.message, { type: 'error' }),
            )
          }
        >
          Subscribe
        </Button>
      </CardContent>
    </Card>
  );
}

export const signalOverrides: Record<string, Partial<Screens>> = {
  'signals/instances': { list: SignalInstanceList, menuLabel: 'Raw signals' },
  signals: {
    create: SignalSetup,
    edit: () => (
      <GenericEdit
        aside={
          <Box>
            <SourcePanel />
            <ExtractionPreview />
          </Box>
        }
      />
    ),
  },
  entity_type: { edit: () => <GenericEdit aside={<BackTestPanel />} />, menuLabel: 'Entity types' },
  entity: { edit: () => <GenericEdit aside={<EntityCases />} />, menuLabel: 'Entities' },
};
