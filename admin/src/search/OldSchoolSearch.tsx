import { useState, type FormEvent } from 'react';
import {
  Box,
  Button,
  MenuItem,
  Pagination,
  Paper,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  TextField,
  Typography,
  Link as MuiLink,
} from '@mui/material';
import { Title, useBasename, useGetList, type RaRecord } from 'react-admin';
import { Link } from 'react-router-dom';
import { INCIDENT_STATUSES } from '../core/shapes.js';

const VISIBILITIES = ['Open', 'Restricted'];
/** Spec §9: incident tables show 25 a page. */
const PER_PAGE = 25;

interface Criteria {
  q: string;
  status: string;
  visibility: string;
  commander: string;
  from: string;
  to: string;
}
const blank: Criteria = { q: '', status: '', visibility: '', commander: '', from: '', to: '' };

/** The incidents found, each name opening the incident. */
function IncidentsFound({ rows }: { rows: RaRecord[] }) {
  const basename = useBasename();
  return (
    <Table size="small" aria-label="Incidents found">
      <TableHead>
        <TableRow>
          <TableCell>Name</TableCell>
          <TableCell>Title</TableCell>
          <TableCell>Status</TableCell>
          <TableCell>Visibility</TableCell>
          <TableCell>Commander</TableCell>
          <TableCell>Reported</TableCell>
        </TableRow>
      </TableHead>
      <TableBody>
        {rows.map((r) => (
          <TableRow key={r.id}>
            <TableCell>
              <MuiLink component={Link} to={`${basename}/iaos/${r.name}/view`}>
                {r.name}
              </MuiLink>
            </TableCell>
            <TableCell>{r.title}</TableCell>
            <TableCell>{r.status}</TableCell>
            <TableCell>{r.visibility}</TableCell>
            <TableCell>{r.commander_email}</TableCell>
            <TableCell>{r.reported_at ? new Date(r.reported_at).toISOString().slice(0, 16).replace('T', ' ') : ''}</TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

/**
 * iaos/old_school_search (spec §2): the classic incident search. Fill in a form, press Search, get a
 * table; nothing happens while typing. It reads the incidents list (`GET /iaos` with q and filter),
 * so it sees exactly the incidents the caller may see there.
 */
export function OldSchoolSearch() {
  const [draft, setDraft] = useState<Criteria>(blank);
  const [criteria, setCriteria] = useState<Criteria | null>(null);
  const [page, setPage] = useState(1);
  const c = criteria ?? blank;
  const {
    data = [],
    total = 0,
    isPending,
    error,
  } = useGetList(
    'iaos',
    {
      filter: {
        q: c.q || undefined,
        status: c.status || undefined,
        visibility: c.visibility || undefined,
        commander_email_ilike: c.commander || undefined,
        reported_at_gte: c.from ? new Date(`${c.from}T00:00:00Z`).toISOString() : undefined,
        reported_at_lte: c.to ? new Date(`${c.to}T23:59:59.999Z`).toISOString() : undefined,
      },
      sort: { field: 'reported_at', order: 'DESC' },
      pagination: { page, perPage: PER_PAGE },
    },
    { enabled: criteria !== null },
  );
  const field = (name: keyof Criteria) => ({
    value: draft[name],
    onChange: (e: { target: { value: string } }) => setDraft({ ...draft, [name]: e.target.value }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setPage(1);
    setCriteria({ ...draft });
  };
  return (
    <Box sx={{ p: 2 }}>
      <Title title="Incident search" />
      <Typography variant="h5" component="h1" sx={{ mb: 2 }}>
        Incident search
      </Typography>
      <Paper component="form" onSubmit={submit} sx={{ p: 2, mb: 2 }} aria-label="Incident search form">
        <Stack direction="row" sx={{ flexWrap: 'wrap', gap: 2 }}>
          <TextField label="Name or title contains" size="small" {...field('q')} />
          <TextField select label="Status" size="small" sx={{ minWidth: 140 }} {...field('status')}>
            <MenuItem value="">Any</MenuItem>
            {INCIDENT_STATUSES.map((s) => (
              <MenuItem key={s} value={s}>
                {s}
              </MenuItem>
            ))}
          </TextField>
          <TextField select label="Visibility" size="small" sx={{ minWidth: 140 }} {...field('visibility')}>
            <MenuItem value="">Any</MenuItem>
            {VISIBILITIES.map((s) => (
              <MenuItem key={s} value={s}>
                {s}
              </MenuItem>
            ))}
          </TextField>
          <TextField label="Commander e-mail contains" size="small" {...field('commander')} />
          <TextField label="Reported from" type="date" size="small" slotProps={{ inputLabel: { shrink: true } }} {...field('from')} />
          <TextField label="Reported to" type="date" size="small" slotProps={{ inputLabel: { shrink: true } }} {...field('to')} />
          <Button type="submit" variant="contained">
            Search
          </Button>
          <Button
            onClick={() => {
              setDraft(blank);
              setCriteria(null);
            }}
          >
            Clear
          </Button>
        </Stack>
      </Paper>
      {criteria === null ? (
        <Typography>Fill in what you know and press Search.</Typography>
      ) : error ? (
        <Typography role="alert">{(error as Error).message}</Typography>
      ) : isPending ? (
        <Typography>Searching…</Typography>
      ) : !data.length ? (
        <Typography>No incident matches.</Typography>
      ) : (
        <>
          <Typography variant="body2" sx={{ mb: 1 }}>
            {total} incident{total === 1 ? '' : 's'}
          </Typography>
          <IncidentsFound rows={data} />
          {total > PER_PAGE ? <Pagination sx={{ mt: 2 }} count={Math.ceil(total / PER_PAGE)} page={page} onChange={(_e, p) => setPage(p)} /> : null}
        </>
      )}
    </Box>
  );
}
