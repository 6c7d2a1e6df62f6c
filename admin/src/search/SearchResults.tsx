import { Box, Card, CardContent, Chip, Link as MuiLink, Pagination, Stack, TextField, Typography } from '@mui/material';
import { Title, useBasename } from 'react-admin';
import { Link, useSearchParams } from 'react-router-dom';
import { Highlighted } from './Highlighted.js';
import { useSearch } from './useSearch.js';
import { useOpenInChat } from '../ai/activeObject.js';

/** Uploads to the AI workspace: their text opens on the chat page. */
const SUBMISSION_TYPES = new Set(['TextSubmission', 'FileSubmissions', 'YouTubeTranscriptSubmission']);

/**
 * search/results (spec §2, §9): every result of a search grouped by type with its count, 25 a page;
 * a type's chip narrows to it.
 */
export function SearchResults() {
  const [params, setParams] = useSearchParams();
  const q = params.get('q') ?? '';
  const type = params.get('type') ?? undefined;
  const page = Number(params.get('page') ?? '1') || 1;
  const basename = useBasename();
  const openInChat = useOpenInChat();
  const { answer, error, loading } = useSearch(q, { type, page, debounce: 0 });
  const set = (changes: Record<string, string | undefined>) => {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(changes)) {
      if (v) next.set(k, v);
      else next.delete(k);
    }
    setParams(next);
  };
  const groupTotal = type ? (answer?.groups.find((g) => g.type === type)?.count ?? 0) : (answer?.total ?? 0);
  // The server ranks 1,000 matches at most: 40 pages.
  const pages = Math.max(1, Math.min(40, Math.ceil(groupTotal / (answer?.items_per_page ?? 25))));
  // The page's results, in their ranked order, under their type.
  const byType = new Map<string, NonNullable<typeof answer>['results']>();
  for (const r of answer?.results ?? []) byType.set(r.type, [...(byType.get(r.type) ?? []), r]);
  return (
    <Box sx={{ p: 2 }}>
      <Title title="Search results" />
      <Typography variant="h5" component="h1" sx={{ mb: 2 }}>
        Search results
      </Typography>
      <TextField
        label="Search"
        defaultValue={q}
        key={q}
        size="small"
        sx={{ mb: 2, width: 480, maxWidth: '100%' }}
        onKeyDown={(e) => e.key === 'Enter' && set({ q: (e.target as HTMLInputElement).value, page: undefined, type: undefined })}
        helperText='Words match as you type them; "a phrase"; -word leaves it out; a or b.'
      />
      {error ? <Typography role="alert">{error}</Typography> : null}
      {!q.trim() ? <Typography>Type something to search for.</Typography> : null}
      {answer ? (
        <>
          <Stack direction="row" sx={{ flexWrap: 'wrap', gap: 1, mb: 2 }} aria-label="Result types">
            <Chip
              label={`All (${answer.total}${answer.total_capped ? '+' : ''})`}
              color={type ? 'default' : 'primary'}
              onClick={() => set({ type: undefined, page: undefined })}
            />
            {answer.groups.map((g) => (
              <Chip
                key={g.type}
                label={`${g.label} (${g.count}${answer.total_capped ? '+' : ''})`}
                color={type === g.type ? 'primary' : 'default'}
                onClick={() => set({ type: g.type, page: undefined })}
              />
            ))}
          </Stack>
          {!answer.results.length && !loading ? <Typography>No results for “{q}”.</Typography> : null}
          {[...byType].map(([t, rows]) => (
            <Card key={t} sx={{ mb: 2 }} component="section" aria-label={answer.groups.find((g) => g.type === t)?.label ?? t}>
              <CardContent>
                <Typography variant="h6" component="h2">
                  {answer.groups.find((g) => g.type === t)?.label ?? t}
                </Typography>
                {rows.map((r) => (
                  <Box key={r.id} sx={{ py: 1, borderBottom: 1, borderColor: 'divider' }}>
                    {SUBMISSION_TYPES.has(r.type) ? (
                      // An upload's matching passage opens as the chat page's active object, with the text around it.
                      <MuiLink
                        component="button"
                        type="button"
                        onClick={() => openInChat({ object_type: 'chunk', object_id: Number(r.id), title: r.title })}
                        sx={{ fontWeight: 600, textAlign: 'left' }}
                      >
                        {r.title}
                      </MuiLink>
                    ) : (
                      <MuiLink component={Link} to={`${basename}${r.link}`} sx={{ fontWeight: 600 }}>
                        {r.title}
                      </MuiLink>
                    )}
                    <Typography variant="body2" color="text.secondary">
                      <Highlighted text={r.headline} />
                    </Typography>
                  </Box>
                ))}
              </CardContent>
            </Card>
          ))}
          {pages > 1 ? <Pagination count={pages} page={page} onChange={(_e, p) => set({ page: String(p) })} /> : null}
        </>
      ) : null}
    </Box>
  );
}
