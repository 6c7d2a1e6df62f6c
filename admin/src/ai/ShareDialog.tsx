import { Alert, Button, Chip, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle, List, ListItem, ListItemText } from '@mui/material';
import { useRecordView } from '../core/queries.js';

interface Preview {
  sources: { title: string; object_type: string; public: boolean; reason: string | null }[];
  withheld: number;
}

/**
 * "Share this chat publicly?": before sharing, what a reader who is not signed in will see. The server
 * says which cited sources it withholds from them (GET /chats/{id}/share-preview; it checks again at
 * every view, so a source restricted later is withheld from then on).
 */
export function ShareDialog({ chatId, open, onCancel, onShare }: { chatId: string | null; open: boolean; onCancel(): void; onShare(): void }) {
  // Read afresh at every opening (the server checks again at every view); until then nothing to share.
  const { data, error, isFetching } = useRecordView<Preview>('chats', chatId ?? undefined, 'share-preview', {
    enabled: open && !!chatId,
    refetchOnWindowFocus: false,
  });
  const preview = open && !isFetching ? (data ?? null) : null;
  const failure = open && !isFetching && error ? error.message : null;
  const count = preview?.sources.length ?? 0;
  return (
    <Dialog open={open} onClose={onCancel} aria-labelledby="share-title" fullWidth maxWidth="sm">
      <DialogTitle id="share-title">Share this chat publicly?</DialogTitle>
      <DialogContent>
        <DialogContentText>Anyone with the link, signed in or not, will read the questions and the answers.</DialogContentText>
        {failure ? <Alert severity="error">{failure}</Alert> : null}
        {preview && preview.withheld > 0 ? (
          <Alert severity="warning" sx={{ my: 1 }} data-testid="share-withheld">
            {preview.withheld} of {count} cited {count === 1 ? 'source' : 'sources'} will be withheld from readers who are not signed in: they see &quot;a
            source you need to sign in to see&quot; instead of its text. Only public uploads are shown to everyone.
          </Alert>
        ) : null}
        <List dense aria-label="Cited sources">
          {preview?.sources.map((s, i) => (
            <ListItem key={`${s.object_type}:${s.title}:${i}`} disableGutters>
              <ListItemText primary={s.title} secondary={s.public ? 'Public: shown to everyone' : s.reason} />
              {/* Not MUI's warning colour: white on its orange fails axe's colour contrast. */}
              <Chip size="small" color={s.public ? 'success' : 'default'} label={s.public ? 'Shown' : 'Withheld'} />
            </ListItem>
          ))}
          {preview && count === 0 ? (
            <ListItem disableGutters>
              <ListItemText primary="No source is cited yet." />
            </ListItem>
          ) : null}
        </List>
        <DialogContentText variant="body2">You can stop sharing at any time; the link then stops working.</DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button onClick={onCancel}>Cancel</Button>
        <Button variant="contained" onClick={onShare} disabled={!preview}>
          Share publicly
        </Button>
      </DialogActions>
    </Dialog>
  );
}
