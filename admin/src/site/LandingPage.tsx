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
import { dataProvider, type ItemsPage } from '../core/dataProvider.js';
import { lightTheme } from '../core/theme.js';
import { Conversation, QuestionForm, type Message } from '../ai/Conversation.js';
import { NOT_CONNECTED, useLiveSocket } from '../ai/socket.js';
import { relativeTime } from '../ai/time.js';
import { useChat } from '../ai/useChat.js';

const KEY = 'anonymous_key';
const at = encodeURIComponent;
type Project = { id: number; name: string };
type Request = (type: string, data: unknown) => Promise<{ type: string; data?: Record<string, unknown> }>;
// This page is outside <Admin> (no react-admin context), so it calls the data provider itself.
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
      await dataProvider.view('auth', { path: `anonymous/me/${at(stored)}`, anonymous: true });
      return stored;
    } catch {
      localStorage.removeItem(KEY);
    }
  }
  const { data: created } = await dataProvider.action<{ key: string }>('auth', { path: 'anonymous', anonymous: true });
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

/** The anonymous limits, read again whenever an answer is done (the questions-asked count moves). */
function useLimits(connected: boolean, request: Request, busy: boolean) {
  const [limits, setLimits] = useState<Limits | null>(null);
  useEffect(() => {
    if (!connected || busy) return;
    void request('fetch_limits', {}).then(
      (f) => f.type === 'limits' && setLimits(f.data as Limits),
      () => undefined,
    );
  }, [connected, request, busy]);
  return limits;
}

/** The files uploaded into the visitor's own project (none for a project that is not theirs). */
function useUploads(request: Request, projectId: number | '', mine: boolean, connected: boolean) {
  const [uploads, setUploads] = useState<{ id: number; title: string; status: string }[]>([]);
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
  return { uploads, refresh };
}

const mb = (bytes?: number) => (bytes ? `${Math.round((bytes / 1_048_576) * 10) / 10} MB` : '…');

/** What a visitor may do without an account, once the socket has said. */
const limitsText = (limits: Limits | null) =>
  limits
    ? `up to ${limits.files_per_project ?? '…'} files of ${mb(limits.max_file_bytes)} a project, ${limits.messages_per_day ?? '…'} questions a day (${limits.messages_today ?? 0} asked today).`
    : 'limits are loading…';

function UploadButton({ disabled, onFiles }: { disabled: boolean; onFiles: (files: FileList | null) => void }) {
  return (
    <Button variant="outlined" component="label" disabled={disabled} fullWidth>
      Upload files
      <input
        hidden
        type="file"
        multiple
        accept=".txt,.md,.markdown,.html,.htm,.pdf,.docx,.csv,.json,.vtt,.srt"
        data-testid="landing-upload-input"
        onChange={(e) => onFiles(e.target.files)}
      />
    </Button>
  );
}

/**
 * A visitor's own material (spec §6): a project of their own, and files uploaded into it within the
 * anonymous limits (fetched over the socket). Only this visitor and the organization's members can
 * retrieve them.
 */
function OwnMaterial(props: {
  anonKey: string;
  connected: boolean;
  request: Request;
  onProject: (p: Project) => void;
  projectId: number | '';
  /** Whether an answer is being written: the questions-asked count is read again after each. */
  busy: boolean;
}) {
  const { anonKey, connected, request, onProject, projectId, busy } = props;
  const [own, setOwn] = useState<Project[]>([]);
  const [name, setName] = useState('');
  const limits = useLimits(connected, request, busy);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  useEffect(() => {
    dataProvider
      .view<ItemsPage<Project>>('projects', { path: `anonymous/user/${at(anonKey)}`, anonymous: true })
      .then(({ data }) => setOwn(data.items))
      .catch(() => setOwn([]));
  }, [anonKey]);
  const mine = typeof projectId === 'number' && own.some((p) => p.id === projectId);
  const { uploads, refresh } = useUploads(request, projectId, mine, connected);

  const create = async (event: React.FormEvent) => {
    event.preventDefault();
    try {
      const { data: project } = await dataProvider.action<Project>('projects', {
        path: `anonymous/${at(anonKey)}`,
        data: { name: name.trim() },
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
  return (
    <Card sx={{ mt: 2 }}>
      <CardContent>
        <Typography variant="h6" component="h2">
          Your own material
        </Typography>
        <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
          Create a project, upload your files and ask about them. Without an account: {limitsText(limits)}
        </Typography>
        <Stack component="form" direction="row" spacing={1} onSubmit={create} sx={{ mb: 1 }}>
          <TextField size="small" label="Project name" value={name} onChange={(e) => setName(e.target.value)} sx={{ flex: 1 }} />
          <Button type="submit" variant="outlined" disabled={!name.trim()}>
            Create project
          </Button>
        </Stack>
        <UploadButton disabled={!connected || !mine} onFiles={(files) => void upload(files)} />
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

/** Trending content and today's count, read again after each answer (the count is today's, so it moves as people ask). */
function TrendingCard({ anonKey, busy, onPick }: { anonKey: string | null; busy: boolean; onPick: (question: string) => void }) {
  const [trending, setTrending] = useState<Trending[]>([]);
  const [questions, setQuestions] = useState<AskedQuestion[]>([]);
  const [askedToday, setAskedToday] = useState<number | null>(null);
  useEffect(() => {
    if (!anonKey || busy) return;
    dataProvider
      .view<{ items: Trending[]; questions: AskedQuestion[]; asked_today: number }>('curated_content', {
        path: `anonymous/trending/${at(anonKey)}`,
        anonymous: true,
      })
      .then(({ data }) => (setTrending(data.items), setQuestions(data.questions), setAskedToday(data.asked_today)))
      .catch(() => (setTrending([]), setQuestions([])));
  }, [anonKey, busy]);
  const engage = (id: number) =>
    void dataProvider
      .action('curated_content', { id, path: 'engagements', query: { key: anonKey ?? '' }, data: { kind: 'click' }, anonymous: true })
      .catch(() => undefined);
  return (
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
                  <Link component="button" type="button" sx={{ textAlign: 'left' }} onClick={() => onPick(q.text)}>
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
                    <Link href={item.link} target="_blank" rel="noreferrer" onClick={() => engage(item.id)}>
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
  );
}

/** landing?chat_id=: a shared chat, read-only. */
function SharedChat({ sharedId, request, onFailure }: { sharedId: string; request: Request; onFailure: (message: string) => void }) {
  const [shared, setShared] = useState<{ title: string; messages: Message[] } | null>(null);
  useEffect(() => {
    dataProvider
      .view<{ title: string; messages: Message[] }>('chats', { path: `shared/${at(sharedId)}`, anonymous: true })
      .then(({ data }) => setShared(data))
      .catch((err: Error) => onFailure(err.message));
  }, [sharedId]);
  return (
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
  );
}

/** The public chat: a project to ask about (all public material by default), the conversation and the question. */
function PublicChat(props: {
  projects: Project[];
  projectId: number | '';
  setProjectId: (id: number | '') => void;
  chat: ReturnType<typeof useChat>;
  socket: ReturnType<typeof useLiveSocket>;
  /** The visitor's key is known, so a socket down is worth saying. */
  keyed: boolean;
  /** The question being typed (a Trending question picked fills it). */
  question: string;
  setQuestion: (question: string) => void;
}) {
  const { projects, projectId, setProjectId, chat, keyed, question, setQuestion } = props;
  const { connected, send, request } = props.socket;
  const onAsk = (event: React.FormEvent) => {
    event.preventDefault();
    if (chat.ask(send, projectId === '' ? null : projectId, question)) setQuestion('');
  };
  return (
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
      {keyed && !connected ? (
        <Alert severity="warning" sx={{ mb: 2 }}>
          {NOT_CONNECTED}
        </Alert>
      ) : null}
      <Conversation messages={chat.messages} busy={chat.busy} chatId={chat.chatId} request={request} />
      <QuestionForm question={question} setQuestion={setQuestion} onAsk={onAsk} busy={chat.busy} connected={connected} error={chat.error} />
    </>
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
  const [projects, setProjects] = useState<Project[]>([]);
  const [projectId, setProjectId] = useState<number | ''>('');
  const [question, setQuestion] = useState('');
  const chat = useChat();
  const socket = useLiveSocket({ anonKey: key }, (frame) => void chat.onFrame(frame));

  useEffect(() => {
    anonymousKey()
      .then(setKey)
      .catch((err: Error) => setFailure(err.message));
  }, []);

  useEffect(() => {
    if (!key) return;
    dataProvider
      .view<ItemsPage<Project>>('projects', { path: `anonymous/${at(key)}`, anonymous: true })
      .then(({ data }) => setProjects(data.items))
      .catch(() => setProjects([]));
  }, [key]);

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
                <SharedChat sharedId={sharedId} request={socket.request} onFailure={setFailure} />
              ) : (
                <PublicChat
                  projects={projects}
                  projectId={projectId}
                  setProjectId={setProjectId}
                  chat={chat}
                  socket={socket}
                  keyed={!!key}
                  question={question}
                  setQuestion={setQuestion}
                />
              )}
            </CardContent>
          </Card>
          <Box sx={{ flex: 1, width: '100%' }}>
            <TrendingCard anonKey={key} busy={chat.busy} onPick={setQuestion} />
            {key && !sharedId ? (
              <OwnMaterial
                busy={chat.busy}
                anonKey={key}
                connected={socket.connected}
                request={socket.request}
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
