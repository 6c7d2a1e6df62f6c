import { useState } from 'react';
import { useParams } from 'react-router-dom';
import { Alert, Box, Button, Card, CardContent, Stack, TextField, Typography } from '@mui/material';
import { Title, useGetOne, useNotify, useUpdate } from 'react-admin';
import { Markdown } from './markdown.js';
import { download, markdownPdf } from './pdf.js';

interface Doc {
  id: number;
  name: string;
  description: string | null;
  resource_type: string | null;
  updated_at: string;
}

/** A file name from the document's name: "IAO-3 post-incident review" → "IAO-3-post-incident-review". */
const fileName = (name: string) => name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'document';

/**
 * documents/{id}/read: a document whose text is Markdown (a postmortem) read as formatted text,
 * edited in the page (Edit, then Save) and exported as Markdown or PDF.
 */
export function DocumentReader() {
  const { id } = useParams();
  const notify = useNotify();
  const { data: doc, error } = useGetOne<Doc>('documents', { id: Number(id) }, { enabled: id !== undefined });
  const [update] = useUpdate<Doc>();
  const [draft, setDraft] = useState<string | null>(null);
  if (error) return <Alert severity="error">{error.message}</Alert>;
  if (!doc) return null;
  const text = doc.description ?? '';
  const save = () =>
    // Only what changed is sent: an unchanged text has nothing to save.
    draft === text
      ? setDraft(null)
      : update(
          'documents',
          { id: doc.id, data: { description: draft }, previousData: doc },
          {
            mutationMode: 'pessimistic',
            onSuccess: () => {
              setDraft(null);
              notify('Document saved.', { type: 'success' });
            },
            onError: (e) => notify(e.message, { type: 'error' }),
          },
        );
  return (
    <Box sx={{ p: 2, maxWidth: 960 }}>
      <Title title={doc.name} />
      <Stack direction="row" sx={{ alignItems: 'center', flexWrap: 'wrap', gap: 1, mb: 2 }}>
        <Typography variant="h5" component="h1" sx={{ flex: 1 }}>
          {doc.name}
        </Typography>
        {draft === null ? (
          <>
            <Button variant="outlined" onClick={() => setDraft(text)}>
              Edit
            </Button>
            <Button onClick={() => download(`${fileName(doc.name)}.md`, text, 'text/markdown')}>Export Markdown</Button>
            <Button
              onClick={() => void markdownPdf(doc.name, text).then((bytes) => download(`${fileName(doc.name)}.pdf`, bytes as BlobPart, 'application/pdf'))}
            >
              Export PDF
            </Button>
          </>
        ) : (
          <>
            <Button variant="contained" onClick={() => void save()}>
              Save
            </Button>
            <Button onClick={() => setDraft(null)}>Cancel</Button>
          </>
        )}
      </Stack>
      <Card>
        <CardContent>
          {draft === null ? (
            <Markdown text={text} />
          ) : (
            <TextField
              label="Text (Markdown)"
              multiline
              fullWidth
              minRows={16}
              value={draft}
              onChange={(e) => setDraft(e.target.value)}
              slotProps={{ htmlInput: { style: { fontFamily: 'monospace' } } }}
            />
          )}
        </CardContent>
      </Card>
    </Box>
  );
}
