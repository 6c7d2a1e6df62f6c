import { useEffect, useRef, useState } from 'react';
import { Alert, Box, Button, Dialog, DialogActions, DialogContent, DialogTitle, IconButton, Link, Stack, TextField, Tooltip, Typography } from '@mui/material';
import ThumbUpIcon from '@mui/icons-material/ThumbUpOutlined';
import ThumbDownIcon from '@mui/icons-material/ThumbDownOutlined';
import { clock, relativeTime } from './time.js';
import { organization } from '../core/org.js';
import { detailText, type Frame } from './socket.js';
import type { Place, Source } from './sources.js';
import { cacheContent, contentKey, resetActiveObject, setActiveObject, useActiveObjectState, type ActiveObject, type ObjectContent } from './activeObject.js';

export interface Message {
  id?: number;
  role: 'user' | 'assistant';
  text: string;
  sources: Source[];
  notice?: string | null;
  created_at?: string;
  feedback?: string | null;
}

/** "page 2", "Setup › Disks", "at 01:02:03", "row 4". */
export function placeLabel(place: Place): string {
  const parts: string[] = [];
  if (place.page !== undefined) parts.push(`page ${place.page}`);
  if (place.heading) parts.push(place.heading);
  if (place.start !== undefined) parts.push(`at ${clock(place.start)}`);
  if (place.row !== undefined) parts.push(`row ${place.row}`);
  if (place.path) parts.push(place.path);
  if (place.line !== undefined && !parts.length) parts.push(`line ${place.line}`);
  return parts.join(', ');
}

/** Turns "[1]" markers in an answer into buttons that open the cited source. */
function AnswerText({ text, sources, onOpen }: { text: string; sources: Source[]; onOpen(s: Source): void }) {
  const parts = text.split(/(\[\d+\])/g);
  return (
    <Typography sx={{ whiteSpace: 'pre-wrap' }} data-role="assistant">
      {parts.map((p, i) => {
        const n = /^\[(\d+)\]$/.exec(p)?.[1];
        const source = n ? sources.find((s) => s.n === Number(n)) : undefined;
        return source ? (
          <Link
            key={i}
            component="button"
            type="button"
            onClick={() => onOpen(source)}
            aria-label={`Open source ${source.n}: ${source.title}`}
            sx={{ verticalAlign: 'baseline' }}
          >
            [{source.n}]
          </Link>
        ) : (
          <span key={i}>{p}</span>
        );
      })}
    </Typography>
  );
}

/** An answer's numbered sources, each opening its passage. */
function SourceList({ sources, onOpen }: { sources: Source[]; onOpen(s: Source): void }) {
  return (
    <Box component="ol" sx={{ pl: 3, mt: 1, mb: 0 }} aria-label="Sources">
      {sources.map((s) => (
        <li key={s.n} value={s.n}>
          <Typography variant="body2">
            <Link component="button" type="button" onClick={() => onOpen(s)} sx={{ fontWeight: 600 }}>
              {s.title}
            </Link>
            {placeLabel(s.place) ? ` (${placeLabel(s.place)})` : ''}: {s.snippet.replace(/[«»]/g, '')}
          </Typography>
        </li>
      ))}
    </Box>
  );
}

/** The two feedback buttons under an answer. */
const FEEDBACK = [
  { value: 'like', title: 'Helpful', label: 'Like this answer', Icon: ThumbUpIcon },
  { value: 'dislike', title: 'Not helpful', label: 'Dislike this answer', Icon: ThumbDownIcon },
] as const;

/** Like and dislike an answer (the pressed one shows), and when it was given. */
function FeedbackBar({ message: m, onFeedback }: { message: Message; onFeedback(message: Message, value: 'like' | 'dislike'): void }) {
  return (
    <Stack direction="row" spacing={1} sx={{ mt: 0.5, alignItems: 'center' }}>
      {FEEDBACK.map(({ value, title, label, Icon }) => (
        <Tooltip key={value} title={title}>
          <IconButton
            size="small"
            aria-label={label}
            aria-pressed={m.feedback === value}
            color={m.feedback === value ? 'primary' : 'default'}
            onClick={() => onFeedback(m, value)}
          >
            <Icon fontSize="small" />
          </IconButton>
        </Tooltip>
      ))}
      {m.created_at ? (
        <Typography variant="caption" color="text.secondary">
          {relativeTime(m.created_at)}
        </Typography>
      ) : null}
    </Stack>
  );
}

/** The opened citation's passage at its place, with the text around it. */
function SourceDialog(props: { opened: ActiveObject | null; content: ObjectContent | undefined; error: string | null; onClose(): void }) {
  const { opened, content, error, onClose: close } = props;
  return (
    <Dialog open={Boolean(opened)} onClose={close} maxWidth="md" fullWidth aria-labelledby="source-title">
      {opened ? (
        <>
          <DialogTitle id="source-title">
            {opened.n ? `[${opened.n}] ` : ''}
            {opened.title}
            {placeLabel(content?.place ?? opened.place ?? {}) ? ` — ${placeLabel(content?.place ?? opened.place ?? {})}` : ''}
          </DialogTitle>
          <DialogContent dividers>
            {error ? <Alert severity="error">{error}</Alert> : null}
            {!content && !error ? <Typography color="text.secondary">Loading…</Typography> : null}
            {content ? (
              <Stack spacing={1.5}>
                {content.before ? (
                  <Typography color="text.secondary" sx={{ whiteSpace: 'pre-wrap' }}>
                    {content.before}
                  </Typography>
                ) : null}
                <Typography data-testid="source-passage" sx={{ whiteSpace: 'pre-wrap', borderLeft: 4, borderColor: 'primary.main', pl: 1.5 }}>
                  {content.text ?? content.chunks?.map((c) => c.text).join('\n\n')}
                </Typography>
                {content.after ? (
                  <Typography color="text.secondary" sx={{ whiteSpace: 'pre-wrap' }}>
                    {content.after}
                  </Typography>
                ) : null}
              </Stack>
            ) : null}
          </DialogContent>
          <DialogActions>
            {opened.url ? (
              <Button href={opened.url} target="_blank" rel="noreferrer">
                Open original
              </Button>
            ) : null}
            <Button onClick={close}>Close</Button>
          </DialogActions>
        </>
      ) : null}
    </Dialog>
  );
}

/**
 * The messages of a chat with numbered citations. A citation opens its passage at its place (page,
 * heading, cue time) with the text around it, fetched over the socket; likes and dislikes are sent
 * when `onFeedback` is given (not in read-only shared views). On the chat page (`followsActiveObject`)
 * the opened passage is the active object, so a search result or an upload opened elsewhere shows here.
 */
export function Conversation(props: {
  messages: Message[];
  busy?: boolean;
  chatId?: string | null;
  sharedView?: boolean;
  followsActiveObject?: boolean;
  request(type: string, data: unknown): Promise<Frame>;
  onFeedback?(message: Message, value: 'like' | 'dislike'): void;
}) {
  const { messages, busy, request, chatId, sharedView } = props;
  const { active, contents } = useActiveObjectState();
  const [local, setLocal] = useState<ActiveObject | null>(null);
  const opened = props.followsActiveObject ? active : local;
  const [failed, setFailed] = useState<{ key: string; message: string } | null>(null);
  const content = opened ? contents.get(contentKey(opened)) : undefined;
  const error = opened && failed?.key === contentKey(opened) ? failed.message : null;
  // The passage is asked for once per opening, whatever re-renders the page.
  const asked = useRef<string | null>(null);
  useEffect(() => {
    if (!opened) asked.current = null;
    if (!opened || content || asked.current === contentKey(opened)) return;
    const key = contentKey(opened);
    asked.current = key;
    request('fetch_object_content', {
      object_type: opened.object_type === 'submission' ? 'submission' : 'chunk',
      object_id: Number(opened.object_id),
      chat_id: chatId ?? null,
      is_shared_view: Boolean(sharedView),
    }).then(
      (reply) =>
        reply.type === 'error' ? setFailed({ key, message: detailText(reply.data) }) : cacheContent(opened, reply.data as NonNullable<typeof content>),
      (err: Error) => setFailed({ key, message: err.message }),
    );
  }, [opened, content, request, chatId, sharedView]);
  const open = (source: Source) => {
    // Incidents, cases and runbooks open their own screens.
    if (source.object_type !== 'chunk' && source.object_type !== 'submission') {
      if (source.url) window.location.assign(`/${organization}/${source.url}`);
      return;
    }
    const o: ActiveObject = {
      object_type: source.object_type,
      object_id: source.object_id,
      title: source.title,
      n: source.n,
      place: source.place,
      url: source.url,
    };
    if (props.followsActiveObject) setActiveObject(o);
    else setLocal(o);
  };
  const close = () => (props.followsActiveObject ? resetActiveObject() : setLocal(null));
  return (
    <>
      <Stack spacing={2} aria-live="polite" data-testid="chat-messages">
        {messages.map((m, i) => (
          <Box
            key={m.id ?? `i${i}`}
            data-testid={`message-${m.role}`}
            sx={{
              alignSelf: m.role === 'user' ? 'flex-end' : 'stretch',
              maxWidth: m.role === 'user' ? '80%' : '100%',
              bgcolor: m.role === 'user' ? 'action.selected' : 'transparent',
              borderRadius: 2,
              p: m.role === 'user' ? 1.5 : 0,
            }}
          >
            {m.notice ? (
              <Alert severity="info" sx={{ mb: 1 }}>
                {m.notice}
              </Alert>
            ) : null}
            {m.role === 'assistant' ? (
              m.text ? (
                <AnswerText text={m.text} sources={m.sources} onOpen={open} />
              ) : (
                <Typography color="text.secondary">{busy && i === messages.length - 1 ? 'Thinking…' : ''}</Typography>
              )
            ) : (
              <Typography sx={{ whiteSpace: 'pre-wrap' }} data-role="user">
                {m.text}
              </Typography>
            )}
            {m.sources.length && m.role === 'assistant' ? <SourceList sources={m.sources} onOpen={open} /> : null}
            {m.role === 'assistant' && m.id && props.onFeedback ? <FeedbackBar message={m} onFeedback={props.onFeedback} /> : null}
          </Box>
        ))}
      </Stack>
      <SourceDialog opened={opened} content={content} error={error} onClose={close} />
    </>
  );
}

/** The question box under a conversation (chat page and public landing page). */
export function QuestionForm({
  question,
  setQuestion,
  onAsk,
  busy,
  connected,
  error,
}: {
  question: string;
  setQuestion: (q: string) => void;
  onAsk: (e: React.FormEvent) => void;
  busy: boolean;
  connected: boolean;
  error?: string | null;
}) {
  return (
    <>
      <Box component="form" onSubmit={onAsk} noValidate sx={{ display: 'flex', gap: 1, mt: 2 }}>
        <TextField label="Your question" value={question} onChange={(e) => setQuestion(e.target.value)} fullWidth size="small" disabled={busy} />
        <Button type="submit" variant="contained" disabled={busy || !connected}>
          Ask
        </Button>
      </Box>
      {error ? (
        <Alert severity="error" sx={{ mt: 2 }}>
          {error}
        </Alert>
      ) : null}
    </>
  );
}
