import { useEffect, useState } from 'react';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  Chip,
  Container,
  createTheme,
  CssBaseline,
  Link,
  List,
  ListItem,
  ListItemText,
  MenuItem,
  Stack,
  TextField,
  ThemeProvider,
  Typography,
  type ThemeOptions,
} from '@mui/material';
import { Link as RouterLink, useLocation, useSearchParams } from 'react-router-dom';
import { organization } from '../core/org.js';
import { api } from '../core/http.js';
import { lightTheme } from '../core/theme.js';
import { Conversation, QuestionForm, type Message } from '../ai/Conversation.js';
import { NOT_CONNECTED, useLiveSocket } from '../ai/socket.js';
import { relativeTime } from '../ai/time.js';
import { useChat } from '../ai/useChat.js';

const KEY = 'anonymous_key';
const theme = createTheme(lightTheme as ThemeOptions);

interface Trending {
  id: number;
  text: string;
  link: string | null;
  created_at: string;
}

/** One of today's most-asked questions on this page (the server leaves out any that only one visitor asked). */
interface AskedQuestion {
  text: string;
  asked: number;
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

/** Reads a file as base64 (without the data: prefix). */
function readBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(new Error('Failed to read file'));
    reader.readAsDataURL(file);
  });
}

interface Limits {
  max_file_bytes?: number;
  files_per_project?: number;
  messages_per_day?: number;
  messages_today?: number;
}

/** What Firewatch is, said before the page asks anything. */
const PITCH =
  'Firewatch is where a team reports incidents and cases, works them together in one live room, and asks an assistant that answers from the team’s own documents, citing every passage.';

/**
 * A visitor's own material (spec §6): a project of their own, and files uploaded into it within the
 * anonymous limits (fetched over the socket). Only this visitor and the organization's members can
 * retrieve them.
 */
function OwnMaterial(props: {
  anonKey: string;
  connected: boolean;
  request: (type: string, data: unknown) => Promise<{ type: string; data?: Record<string, unknown> }>;
  onProject: (p: { id: number; name: string }) => void;
  projectId: number | '';
  /** Whether an answer is being written: the questions-asked count is read again after each. */
  busy: boolean;
}) {
  const { anonKey, connected, request, onProject, projectId, busy } = props;
  const [own, setOwn] = useState<{ id: number; name: string }[]>([]);
  const [name, setName] = useState('');
  const [limits, setLimits] = useState<Limits | null>(null);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [uploads, setUploads] = useState<{ id: number; title: string; status: string }[]>([]);
  useEffect(() => {
    api<{ items: { id: number; name: string }[] }>(`/projects/anonymous/user/${encodeURIComponent(anonKey)}`, { anonymous: true })
      .then((r) => setOwn(r.items))
      .catch(() => setOwn([]));
  }, [anonKey]);
  useEffect(() => {
    if (!connected || busy) return;
    void request('fetch_limits', {}).then(
      (f) => f.type === 'limits' && setLimits(f.data as Limits),
      () => undefined,
    );
  }, [connected, request, busy]);
  const mine = typeof projectId === 'number' && own.some((p) => p.id === projectId);
  const refresh = async () => {
    if (!mine) return setUploads([]);
    const reply = await request('fetch_submissions', { project_id: projectId }).catch(() => null);
    if (reply?.type === 'submissions')
      setUploads(
        ((reply.data?.items ?? []) as { id: number; title: string; fileName?: string; status: string }[]).map((s) => ({
          id: s.id,
          title: s.fileName ?? s.title,
          status: s.status,
        })),
      );
  };
  useEffect(() => void refresh(), [projectId, mine, connected]);

  const create = async (event: React.FormEvent) => {
    event.preventDefault();
    try {
      const project = await api<{ id: number; name: string }>(`/projects/anonymous/${encodeURIComponent(anonKey)}`, {
        method: 'POST',
        json: { name: name.trim() },
        anonymous: true,
      });
      setOwn((list) => [...list, project]);
      setName('');
      setMessage({ ok: true, text: `Project '${project.name}' created. Upload files into it, then ask about them.` });
      onProject(project);
    } catch (err) {
      setMessage({ ok: false, text: (err as Error).message });
    }
  };
  const upload = async (files: FileList | null) => {
    if (!files || !mine) return;
    for (const file of Array.from(files)) {
      try {
        const reply = await request('file_upload', {
          fileName: file.name,
          fileType: file.type || null,
          fileContent: await readBase64(file),
          buildIndex: true,
          project_id: projectId,
          eccs_project_id: null,
          sensitivityLevel: 'internal',
        });
        const ok = reply.data?.status === 'success';
        setMessage({ ok, text: String(reply.data?.message ?? (ok ? 'File uploaded.' : 'Upload failed')) });
      } catch (err) {
        setMessage({ ok: false, text: (err as Error).message });
      }
    }
    await refresh();
  };
  const mb = (bytes?: number) => (bytes ? `${Math.round((bytes / 1_048_576) * 10) / 10} MB` : '…');
  return (
    <Card sx={{ mt: 2 }}>
      <CardContent>
        <Typography variant="h6" component="h2">
          Your own material
        </Typography>
        <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
          Create a project, upload your files and ask about them. Without an account:{' '}
          {limits
            ? `up to ${limits.files_per_project ?? '…'} files of ${mb(limits.max_file_bytes)} a project, ${limits.messages_per_day ?? '…'} questions a day (${limits.messages_today ?? 0} asked today).`
            : 'limits are loading…'}
        </Typography>
        <Stack component="form" direction="row" spacing={1} onSubmit={create} sx={{ mb: 1 }}>
          <TextField size="small" label="Project name" value={name} onChange={(e) => setName(e.target.value)} sx={{ flex: 1 }} />
          <Button type="submit" variant="outlined" disabled={!name.trim()}>
            Create project
          </Button>
        </Stack>
        <Button variant="outlined" component="label" disabled={!connected || !mine} fullWidth>
          Upload files
          <input
            hidden
            type="file"
            multiple
            accept=".txt,.md,.markdown,.html,.htm,.pdf,.docx,.csv,.json,.vtt,.srt"
            data-testid="landing-upload-input"
            onChange={(e) => void upload(e.target.files)}
          />
        </Button>
        {!mine ? (
          <Typography variant="caption" color="text.secondary">
            Pick or create one of your projects to upload into it.
          </Typography>
        ) : null}
        {message ? (
          <Alert severity={message.ok ? 'success' : 'error'} sx={{ mt: 1 }} role="status">
            {message.text}
          </Alert>
        ) : null}
        <List dense aria-label="Your uploads">
          {uploads.map((u) => (
            <ListItem key={u.id} disableGutters data-testid="landing-upload">
              <ListItemText primary={u.title} secondary={u.status} />
            </ListItem>
          ))}
        </List>
      </CardContent>
    </Card>
  );
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
  const [questions, setQuestions] = useState<AskedQuestion[]>([]);
  const [askedToday, setAskedToday] = useState<number | null>(null);
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
  }, [key]);
  // Trending and today's count, again after each answer (the count is today's, so it moves as people ask).
  useEffect(() => {
    if (!key || chat.busy) return;
    api<{ items: Trending[]; questions: AskedQuestion[]; asked_today: number }>(`/curated_content/anonymous/trending/${encodeURIComponent(key)}`, {
      anonymous: true,
    })
      .then((r) => (setTrending(r.items), setQuestions(r.questions), setAskedToday(r.asked_today)))
      .catch(() => (setTrending([]), setQuestions([])));
  }, [key, chat.busy]);

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
        <Typography variant="subtitle1" component="p" sx={{ mb: 3, maxWidth: 760 }} data-testid="pitch">
          {PITCH}
        </Typography>
        {failure ? (
          <Alert severity="error" sx={{ mb: 2 }}>
            {failure}
          </Alert>
        ) : null}
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
                  <Stack direction="row" sx={{ alignItems: 'center', mb: 2, flexWrap: 'wrap', gap: 2 }}>
                    <Typography variant="h6" component="h2" sx={{ flex: '1 1 260px' }}>
                      Ask our public knowledge base
                    </Typography>
                    <TextField
                      select
                      size="small"
                      label="Project"
                      // Shows "All public material" before it is opened.
                      slotProps={{ select: { displayEmpty: true }, inputLabel: { shrink: true } }}
                      value={projectId}
                      onChange={(e) => setProjectId(e.target.value === '' ? '' : Number(e.target.value))}
                      sx={{ minWidth: 200 }}
                    >
                      <MenuItem value="">All public material</MenuItem>
                      {projects.map((p) => (
                        <MenuItem key={p.id} value={p.id}>
                          {p.name}
                        </MenuItem>
                      ))}
                    </TextField>
                  </Stack>
                  {key && !connected ? (
                    <Alert severity="warning" sx={{ mb: 2 }}>
                      {NOT_CONNECTED}
                    </Alert>
                  ) : null}
                  <Conversation messages={chat.messages} busy={chat.busy} chatId={chat.chatId} request={request} />
                  <QuestionForm question={question} setQuestion={setQuestion} onAsk={onAsk} busy={chat.busy} connected={connected} error={chat.error} />
                </>
              )}
            </CardContent>
          </Card>
          <Box sx={{ flex: 1, width: '100%' }}>
            <Card>
              <CardContent>
                <Typography variant="h6" component="h2">
                  Trending
                </Typography>
                <Typography variant="body2" color="text.secondary" data-testid="asked-today">
                  {askedToday === null ? '' : askedToday === 1 ? '1 question asked here today.' : `${askedToday} questions asked here today.`}
                </Typography>
                <List dense aria-label="Trending content">
                  {/* Today's most-asked questions; the curated content when nobody asked any today. */}
                  {questions.map((q) => (
                    <ListItem key={q.text} disableGutters>
                      <ListItemText
                        primary={
                          <Link component="button" type="button" sx={{ textAlign: 'left' }} onClick={() => setQuestion(q.text)}>
                            {q.text}
                          </Link>
                        }
                        secondary={`Asked by ${q.asked} visitors today`}
                      />
                    </ListItem>
                  ))}
                  {questions.length === 0 && trending.length === 0 ? (
                    <ListItem disableGutters>
                      <Typography variant="body2" color="text.secondary">
                        Nothing trending yet.
                      </Typography>
                    </ListItem>
                  ) : null}
                  {(questions.length ? [] : trending).map((item) => (
                    <ListItem key={item.id} disableGutters>
                      <ListItemText
                        primary={
                          item.link ? (
                            <Link
                              href={item.link}
                              target="_blank"
                              rel="noreferrer"
                              onClick={() =>
                                void api(`/curated_content/${item.id}/engagements?key=${encodeURIComponent(key ?? '')}`, {
                                  method: 'POST',
                                  json: { kind: 'click' },
                                  anonymous: true,
                                }).catch(() => undefined)
                              }
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
            {key && !sharedId ? (
              <OwnMaterial
                busy={chat.busy}
                anonKey={key}
                connected={connected}
                request={request}
                projectId={projectId}
                onProject={(p) => {
                  setProjects((list) => (list.some((x) => x.id === p.id) ? list : [...list, p]));
                  setProjectId(p.id);
                }}
              />
            ) : null}
          </Box>
        </Stack>
      </Container>
    </ThemeProvider>
  );
}
