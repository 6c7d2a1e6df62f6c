import { useEffect, useState } from 'react';
import { Alert, Button, Card, CardContent, Chip, Container, createTheme, CssBaseline, Link, List, ListItem, ListItemText, MenuItem, Stack, TextField, ThemeProvider, Typography, type ThemeOptions } from '@mui/material';
import { Link as RouterLink, useLocation, useSearchParams } from 'react-router-dom';
import { organization } from '../../org.js';
import { api } from '../../providers/http.js';
import { lightTheme } from '../../theme.js';
import { Conversation, QuestionForm, type Message } from '../chat/Conversation.js';
import { NOT_CONNECTED, useLiveSocket } from '../chat/socket.js';
import { relativeTime } from '../chat/time.js';
import { useChat } from '../chat/useChat.js';

const KEY = 'anonymous_key';
const theme = createTheme(lightTheme as ThemeOptions);

interface Trending {
  id: number;
  text: string;
  link: string | null;
  created_at: string;
}

/** The visitor's temporary key: the stored one while the server still knows it, else a new one. */
async function anonymousKey(): Promise<string> {
  const stored = localStorage.getItem(KEY);
  if (stored) {
    try {
      await api(`/auth/anonymous/me/${encodeURIComponent(stored)}`, { anonymous: true });
      return stored;
    } catch {
      localStorage.removeItem(KEY);
    }
  }
  const created = await api<{ key: string }>('/auth/anonymous', { method: 'POST', anonymous: true });
  localStorage.setItem(KEY, created.key);
  return created.key;
}

/**
 * /{organization}/landing: the public chat for visitors without a login, over the organization's
 * public material, with trending content. landing?chat_id= shows a shared chat read-only.
 */
export function LandingPage() {
  const [params] = useSearchParams();
  // Sent here from a protected page: the sign-in link carries that page along, so signing in returns to it.
  const { state: from } = useLocation();
  const sharedId = params.get('chat_id');
  const [key, setKey] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [projects, setProjects] = useState<{ id: number; name: string }[]>([]);
  const [projectId, setProjectId] = useState<number | ''>('');
  const [trending, setTrending] = useState<Trending[]>([]);
  const [shared, setShared] = useState<{ title: string; messages: Message[] } | null>(null);
  const [question, setQuestion] = useState('');
  const chat = useChat();
  const { connected, send, request } = useLiveSocket({ anonKey: key }, (frame) => void chat.onFrame(frame));

  useEffect(() => {
    anonymousKey()
      .then(setKey)
      .catch((err: Error) => setFailure(err.message));
  }, []);

  useEffect(() => {
    if (!key) return;
    api<{ items: { id: number; name: string }[] }>(`/projects/anonymous/${encodeURIComponent(key)}`, { anonymous: true })
      .then((r) => setProjects(r.items))
      .catch(() => setProjects([]));
    api<{ items: Trending[] }>(`/curated_content/anonymous/trending/${encodeURIComponent(key)}`, { anonymous: true })
      .then((r) => setTrending(r.items))
      .catch(() => setTrending([]));
  }, [key]);

  useEffect(() => {
    if (!sharedId) return;
    api<{ title: string; messages: Message[] }>(`/chats/shared/${encodeURIComponent(sharedId)}`, { anonymous: true })
      .then(setShared)
      .catch((err: Error) => setFailure(err.message));
  }, [sharedId]);

  const onAsk = (event: React.FormEvent) => {
    event.preventDefault();
    if (chat.ask(send, projectId === '' ? null : projectId, question)) setQuestion('');
  };

  return (
    <ThemeProvider theme={theme}>
      <CssBaseline />
      <Container maxWidth="lg" component="main" sx={{ py: 4 }}>
        <Stack direction="row" sx={{ alignItems: 'center', mb: 3 }}>
          <Typography variant="h4" component="h1" sx={{ flex: 1 }}>
            Firewatch
          </Typography>
          <Button component={RouterLink} to={`/${organization}/auth/login`} state={from} variant="outlined">
            Sign in
          </Button>
        </Stack>
        {failure ? <Alert severity="error" sx={{ mb: 2 }}>{failure}</Alert> : null}
        <Stack direction={{ xs: 'column', md: 'row' }} spacing={2} sx={{ alignItems: 'flex-start' }}>
          <Card sx={{ flex: 2, width: '100%' }}>
            <CardContent>
              {sharedId ? (
                <>
                  <Stack direction="row" spacing={1} sx={{ alignItems: 'center', mb: 2 }}>
                    <Typography variant="h6" component="h2" sx={{ flex: 1 }}>
                      {shared?.title ?? 'Shared chat'}
                    </Typography>
                    <Chip size="small" label="Read-only" />
                  </Stack>
                  {shared ? <Conversation messages={shared.messages} chatId={sharedId} sharedView request={request} /> : null}
                  <Button href={`/${organization}/landing`} sx={{ mt: 2 }}>
                    Ask your own question
                  </Button>
                </>
              ) : (
                <>
                  <Stack direction="row" spacing={2} sx={{ alignItems: 'center', mb: 2 }}>
                    <Typography variant="h6" component="h2" sx={{ flex: 1 }}>
                      Ask our public knowledge base
                    </Typography>
                    <TextField select size="small" label="Project" value={projectId} onChange={(e) => setProjectId(e.target.value === '' ? '' : Number(e.target.value))} sx={{ minWidth: 200 }}>
                      <MenuItem value="">All public material</MenuItem>
                      {projects.map((p) => (
                        <MenuItem key={p.id} value={p.id}>
                          {p.name}
                        </MenuItem>
                      ))}
                    </TextField>
                  </Stack>
                  {key && !connected ? <Alert severity="warning" sx={{ mb: 2 }}>{NOT_CONNECTED}</Alert> : null}
                  <Conversation messages={chat.messages} busy={chat.busy} chatId={chat.chatId} request={request} />
                  <QuestionForm question={question} setQuestion={setQuestion} onAsk={onAsk} busy={chat.busy} connected={connected} error={chat.error} />
                </>
              )}
            </CardContent>
          </Card>
          <Card sx={{ flex: 1, width: '100%' }}>
            <CardContent>
              <Typography variant="h6" component="h2">
                Trending
              </Typography>
              <List dense aria-label="Trending content">
                {trending.length === 0 ? <Typography variant="body2" color="text.secondary">Nothing trending yet.</Typography> : null}
                {trending.map((item) => (
                  <ListItem key={item.id} disableGutters>
                    <ListItemText
                      primary={
                        item.link ? (
                          <Link
                            href={item.link}
                            target="_blank"
                            rel="noreferrer"
                            onClick={() => void api(`/curated_content/${item.id}/engagements?key=${encodeURIComponent(key ?? '')}`, { method: 'POST', json: { kind: 'click' }, anonymous: true }).catch(() => undefined)}
                          >
                            {item.text}
                          </Link>
                        ) : (
                          item.text
                        )
                      }
                      secondary={relativeTime(item.created_at)}
                    />
                  </ListItem>
                ))}
              </List>
            </CardContent>
          </Card>
        </Stack>
      </Container>
    </ThemeProvider>
  );
}
