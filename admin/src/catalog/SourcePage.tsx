import { useEffect, type ReactNode } from 'react';
import { Box, Button, Card, CardContent, Tab, Tabs, Typography } from '@mui/material';
import EditIcon from '@mui/icons-material/Edit';
import { Link, useNavigate, useParams } from 'react-router-dom';
import {
  Datagrid,
  FunctionField,
  Loading,
  NumberField,
  RecordContextProvider,
  ReferenceField,
  ReferenceManyField,
  ResourceContextProvider,
  TextField,
  Title,
  useCreatePath,
  useGetList,
  useNotify,
  useRedirect,
} from 'react-admin';
import { labelOf, metaOf } from '../core/meta.js';
import { utc } from '../engine/screens.js';

const RESOURCE = 'data/sources';
export const SOURCE_TABS = [
  ['details', 'Details'],
  ['schema', 'Schema'],
  ['sample_log', 'Sample log'],
  ['queries', 'Queries'],
  ['incidents', 'Incidents'],
  ['alerts', 'Alerts'],
] as const;
type TabName = (typeof SOURCE_TABS)[number][0];

/** Shown where the server has no data yet (a source's incidents and alerts are not linked). */
const Empty = ({ children }: { children: ReactNode }) => (
  <Typography color="text.secondary" sx={{ py: 3 }}>
    {children}
  </Typography>
);

const DETAIL_SKIP = new Set(['id', 'name', 'schema', 'sample_log', 'links', 'organization_id', 'created_by']);

function Details({ record }: { record: Record<string, unknown> }) {
  const meta = metaOf(RESOURCE);
  const columns = (meta?.columns ?? []).filter((c) => !DETAIL_SKIP.has(c.name));
  const links = Array.isArray(record.links) ? (record.links as { name?: string; url: string }[]) : [];
  return (
    <Box component="dl" sx={{ display: 'grid', gridTemplateColumns: 'max-content 1fr', columnGap: 3, rowGap: 1, m: 0 }}>
      {columns.map((c) => {
        const reference = meta?.references[c.name];
        const value = record[c.name];
        return (
          <Box key={c.name} sx={{ display: 'contents' }}>
            <Typography component="dt" color="text.secondary">
              {labelOf(meta, c.name)}
            </Typography>
            <Typography component="dd" sx={{ m: 0, whiteSpace: 'pre-wrap' }}>
              {reference && value !== null && value !== undefined ? (
                <ReferenceField source={c.name} reference={reference} link={false} />
              ) : c.type === 'date' ? (
                utc(value)
              ) : c.type === 'boolean' ? (
                value ? (
                  'Yes'
                ) : (
                  'No'
                )
              ) : value === null || value === undefined || value === '' ? (
                '—'
              ) : (
                String(value)
              )}
            </Typography>
          </Box>
        );
      })}
      <Typography component="dt" color="text.secondary">
        Links
      </Typography>
      <Box component="dd" sx={{ m: 0 }}>
        {links.length
          ? links.map((l) => (
              <div key={l.url}>
                <a href={l.url} rel="noreferrer">
                  {l.name || l.url}
                </a>
              </div>
            ))
          : '—'}
      </Box>
    </Box>
  );
}

const Text = ({ value, what }: { value: unknown; what: string }) =>
  typeof value === 'string' && value.trim() ? (
    <Box component="pre" tabIndex={0} aria-label={what} sx={{ m: 0, p: 2, bgcolor: 'action.hover', overflow: 'auto', maxHeight: 480, fontSize: 13 }}>
      {value}
    </Box>
  ) : (
    <Empty>No {what.toLowerCase()} recorded for this source.</Empty>
  );

function Queries() {
  return (
    <ReferenceManyField reference="data/queries" target="source_id" perPage={10} sort={{ field: 'name', order: 'ASC' }}>
      <Datagrid bulkActionButtons={false} rowClick="edit" empty={<Empty>No queries use this source yet.</Empty>}>
        <TextField source="name" label="Name" />
        <TextField source="language" label="Language" />
        <NumberField source="count" label="Count" />
        <FunctionField source="created_at" label="Created at" render={(r) => utc(r.created_at)} />
      </Datagrid>
    </ReferenceManyField>
  );
}

/** data/sources/{name}/{tab}: one source by name with its tabs; a missing name notifies and goes back to the list. */
export function SourcePage() {
  const { name = '', tab = 'details' } = useParams();
  const notify = useNotify();
  const redirect = useRedirect();
  const navigate = useNavigate();
  const createPath = useCreatePath();
  const { data, isPending, error } = useGetList(RESOURCE, { filter: { name }, pagination: { page: 1, perPage: 1 }, sort: { field: 'name', order: 'ASC' } });
  const record = data?.[0];
  const missing = !isPending && !error && !record;

  useEffect(() => {
    if (!missing) return;
    notify(`Source '${name}' could not be found.`, { type: 'error' });
    redirect('list', RESOURCE);
  }, [missing, name, notify, redirect]);

  if (isPending) return <Loading />;
  if (!record) return null;
  const current: TabName = SOURCE_TABS.some(([t]) => t === tab) ? (tab as TabName) : 'details';
  const base = `${createPath({ resource: RESOURCE, type: 'list' })}/${encodeURIComponent(name)}`;

  return (
    <ResourceContextProvider value={RESOURCE}>
      <RecordContextProvider value={record}>
        <Title title={`Source ${record.name}`} />
        <Card sx={{ mt: 2 }}>
          <CardContent>
            <Box sx={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', mb: 1 }}>
              <Typography variant="h5" component="h1">
                {record.name}
              </Typography>
              <Button component={Link} to={createPath({ resource: RESOURCE, type: 'edit', id: record.id })} startIcon={<EditIcon />}>
                Edit
              </Button>
            </Box>
            <Tabs value={current} onChange={(_e, t: string) => navigate(`${base}/${t}`)} aria-label="Source sections" variant="scrollable">
              {SOURCE_TABS.map(([t, label]) => (
                <Tab key={t} value={t} label={label} id={`source-tab-${t}`} aria-controls="source-tabpanel" />
              ))}
            </Tabs>
            <Box role="tabpanel" id="source-tabpanel" aria-labelledby={`source-tab-${current}`} sx={{ pt: 2 }}>
              {current === 'details' ? <Details record={record} /> : null}
              {current === 'schema' ? <Text value={record.schema} what="Schema" /> : null}
              {current === 'sample_log' ? <Text value={record.sample_log} what="Sample log" /> : null}
              {current === 'queries' ? <Queries /> : null}
              {current === 'incidents' ? <Empty>No incidents are linked to this source yet.</Empty> : null}
              {current === 'alerts' ? <Empty>No alerts are linked to this source yet.</Empty> : null}
            </Box>
          </CardContent>
        </Card>
      </RecordContextProvider>
    </ResourceContextProvider>
  );
}
