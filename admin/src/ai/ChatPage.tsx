import { useCallback, useEffect, useState } from 'react';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  Chip,
  List,
  ListItem,
  ListItemButton,
  ListItemText,
  MenuItem,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { Title, useGetList, useNotify, useTranslate } from 'react-admin';
import { useSearchParams } from 'react-router-dom';
import { organization, storage } from '../core/org.js';
import type { ItemsPage } from '../core/dataProvider.js';
import { useFirewatchData } from '../core/queries.js';
import { Conversation, QuestionForm, type Message } from './Conversation.js';
import { detailText, NOT_CONNECTED, useLiveSocket, type Frame } from './socket.js';
import { relativeTime } from './time.js';
import { useChat } from './useChat.js';
import { SourcesPanel, type Submission } from './SourcesPanel.js';
import { ShareDialog } from './ShareDialog.js';
import { createProject, rememberProject, storedProject } from '../core/project.js';

/** Shown while the organization has no project: uploads need one, so the page offers to make it here. */
function NewProject({ onCreated }: { onCreated: (id: number) => void }) {
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    if (!name.trim()) return setError('This field is required');
    setBusy(true);
    setError(null);
    try {
      const made = await createProject<{ id: number }>({ name: name.trim() });
      onCreated(made.id);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Stack component="form" spacing={1} onSubmit={submit} sx={{ mb: 2 }} aria-label="Create a project">
      <Alert severity="info">There is no project yet. Documents and chats live in a project: create one to start.</Alert>
      <TextField size="small" label="Project name" value={name} onChange={(e) => setName(e.target.value)} error={!!error} helperText={error ?? undefined} />
      <Button type="submit" variant="contained" disabled={busy}>
        Create project
      </Button>
    </Stack>
  );
}

interface ChatSummary {
  id: string;
  title: string;
  shared: boolean;
  updated_at: string;
}
type Project = { id: number; name: string };

const landingLink = (id: string) => `${window.location.origin}/${organization}/landing?chat_id=${id}`;

/** The project chosen: the one last chosen (localStorage `project`), else the first one, until the person picks. */
function useProjectChoice(projects: Project[] | undefined) {
  // '' is "no project": the chats asked before any project existed stay reachable there.
  const [projectId, setProjectIdState] = useState<number | ''>('');
  const [picked, setPicked] = useState(false);
  const setProjectId = (id: number | '') => {
    setProjectIdState(id);
    setPicked(true);
    if (id !== '') rememberProject(id);
  };
  useEffect(() => {
    if (picked || !projects?.length) return;
    const stored = storedProject();
    setProjectIdState(projects.some((p) => p.id === stored) ? stored! : projects[0]!.id);
    setPicked(true);
  }, [projects, picked]);
  return { projectId, setProjectId };
}

/** The project's chats (with no project, those asked before any project existed). */
function useChatList(projectId: number | '') {
  const dataProvider = useFirewatchData();
  const [chats, setChats] = useState<ChatSummary[]>([]);
  const loadChats = useCallback(async () => {
    try {
      if (projectId === '') {
        const { data: res } = await dataProvider.view<ItemsPage<ChatSummary & { project_id: number | null }>>('chats', { query: { itemsPerPage: 200 } });
        return setChats(res.items.filter((c) => c.project_id === null));
      }
      const { data: res } = await dataProvider.view<ItemsPage<ChatSummary>>('chats', { query: { project_id: projectId } });
      setChats(res.items);
    } catch {
      /* the list stays as it was */
    }
  }, [projectId, dataProvider]);
  return { chats, setChats, loadChats };
}

/** The project's sources over the socket, asked again every 5 s while something is indexing (another server process may be doing the work). */
function useSubmissions(projectId: number | '', connected: boolean, send: (type: string, data: unknown) => void) {
  const [submissions, setSubmissions] = useState<Submission[]>([]);
  const refreshSubmissions = useCallback(() => {
    if (projectId === '' || !connected) return;
    try {
      send('fetch_submissions', { project_id: projectId });
    } catch {
      /* reconnecting */
    }
  }, [projectId, connected, send]);
  const indexing = submissions.some((s) => s.status === 'uploaded' || s.status === 'indexing');
  useEffect(() => {
    if (!indexing) return;
    const timer = setInterval(refreshSubmissions, 5000);
    return () => clearInterval(timer);
  }, [indexing, refreshSubmissions]);
  return { submissions, setSubmissions, refreshSubmissions };
}

/** Sharing the open chat: its public link (none while unshared), and the actions that make and drop it. */
function useSharing(chatId: string | null, setChats: React.Dispatch<React.SetStateAction<ChatSummary[]>>) {
  const notify = useNotify();
  const dataProvider = useFirewatchData();
  const [shareLink, setShareLink] = useState<string | null>(null);
  const [confirmShare, setConfirmShare] = useState(false);
  const unshare = async () => {
    if (!chatId) return;
    try {
      await dataProvider.action('chats', { id: chatId, method: 'PUT', data: { shared: false } });
      setShareLink(null);
      setChats((list) => list.map((c) => (c.id === chatId ? { ...c, shared: false } : c)));
      notify('The chat is no longer shared: its link stops working.', { type: 'info' });
    } catch (err) {
      notify((err as Error).message, { type: 'error' });
    }
  };
  const share = async () => {
    if (!chatId) return;
    setConfirmShare(false);
    try {
      await dataProvider.action('chats', { id: chatId, method: 'PUT', data: { shared: true } });
      setChats((list) => list.map((c) => (c.id === chatId ? { ...c, shared: true } : c)));
      const link = landingLink(chatId);
      setShareLink(link);
      await navigator.clipboard?.writeText(link).then(
        () => notify('Copied to clipboard.', { type: 'info' }),
        () => undefined,
      );
    } catch (err) {
      notify((err as Error).message, { type: 'error' });
    }
  };
  return { shareLink, setShareLink, confirmShare, setConfirmShare, share, unshare };
}

/** The left column: the project picker (or a first project to create), New chat, and the project's chats. */
function ChatList(props: {
  projects: Project[] | undefined;
  projectId: number | '';
  onProject: (id: number | '') => void;
  onCreated: (id: number) => void;
  newChat: () => void;
  busy: boolean;
  chats: ChatSummary[];
  chatId: string | null;
  onOpen: (id: string) => void;
}) {
  const { projects, projectId, chats } = props;
  return (
    <Card sx={{ width: { xs: '100%', lg: 260 }, flexShrink: 0 }}>
      <CardContent>
        {projects && projects.length === 0 ? <NewProject onCreated={props.onCreated} /> : null}
        <TextField
          select
          size="small"
          fullWidth
          label="Project"
          value={projectId}
          onChange={(e) => props.onProject(e.target.value === '' ? '' : Number(e.target.value))}
          slotProps={{ select: { displayEmpty: true }, inputLabel: { shrink: true } }}
        >
          {(projects ?? []).map((p) => (
            <MenuItem key={p.id} value={p.id}>
              {p.name}
            </MenuItem>
          ))}
          <MenuItem value="">
            <em>No project</em>
          </MenuItem>
        </TextField>
        <Button fullWidth sx={{ mt: 1 }} onClick={props.newChat} disabled={props.busy}>
          New chat
        </Button>
        <Typography variant="subtitle2" component="h2" sx={{ mt: 2 }}>
          Chats
        </Typography>
        <List dense aria-label="Chats">
          {chats.length === 0 ? (
            <ListItem disablePadding>
              <Typography variant="body2" color="text.secondary">
                No chats yet.
              </Typography>
            </ListItem>
          ) : null}
          {chats.map((c) => (
            <ListItem key={c.id} disablePadding>
              <ListItemButton selected={c.id === props.chatId} onClick={() => props.onOpen(c.id)}>
                <ListItemText primary={c.title} secondary={`${relativeTime(c.updated_at)}${c.shared ? ' · shared' : ''}`} />
              </ListItemButton>
            </ListItem>
          ))}
        </List>
      </CardContent>
    </Card>
  );
}

/** The middle column: the connection, sharing, the conversation and the question box. */
function ConversationCard(props: {
  chat: ReturnType<typeof useChat>;
  socket: ReturnType<typeof useLiveSocket>;
  sharing: ReturnType<typeof useSharing>;
  projectId: number | '';
}) {
  const { chat, sharing, projectId } = props;
  const { connected, send, request } = props.socket;
  const { shareLink } = sharing;
  const notify = useNotify();
  const [question, setQuestion] = useState('');
  const onAsk = (event: React.FormEvent) => {
    event.preventDefault();
    if (chat.ask(send, projectId === '' ? null : projectId, question)) setQuestion('');
  };
  const onFeedback = async (message: Message, value: 'like' | 'dislike') => {
    try {
      const reply = await request('message_feedback', { message_id: message.id, value });
      if (reply.type === 'error') return notify(detailText(reply.data), { type: 'error' });
      chat.setMessages((list) => list.map((m) => (m.id === message.id ? { ...m, feedback: value } : m)));
      notify(String(reply.data?.message ?? 'Thank you for your feedback!'), { type: 'info' });
    } catch (err) {
      notify((err as Error).message, { type: 'error' });
    }
  };
  return (
    <Card sx={{ flex: 2, width: '100%' }}>
      <CardContent>
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center', mb: 2 }}>
          <Chip size="small" color={connected ? 'success' : 'default'} label={connected ? 'Connected' : 'Reconnecting…'} />
          <Box sx={{ flex: 1 }} />
          {shareLink ? (
            <Button size="small" variant="outlined" onClick={() => void sharing.unshare()}>
              Stop sharing
            </Button>
          ) : (
            <Button size="small" variant="outlined" onClick={() => sharing.setConfirmShare(true)} disabled={!chat.chatId || chat.busy}>
              Share
            </Button>
          )}
        </Stack>
        {!connected ? (
          <Alert severity="warning" sx={{ mb: 2 }}>
            {NOT_CONNECTED}
          </Alert>
        ) : null}
        {shareLink ? (
          <Alert severity="success" sx={{ mb: 2 }}>
            Anyone with this link can read the chat:{' '}
            <a href={shareLink} data-testid="share-link">
              {shareLink}
            </a>
          </Alert>
        ) : null}
        <ShareDialog chatId={chat.chatId} open={sharing.confirmShare} onCancel={() => sharing.setConfirmShare(false)} onShare={() => void sharing.share()} />
        {chat.messages.length === 0 ? <Typography color="text.secondary">Ask about the documents, notes and transcripts of this project.</Typography> : null}
        <Conversation messages={chat.messages} busy={chat.busy} chatId={chat.chatId} request={request} onFeedback={onFeedback} followsActiveObject />
        <QuestionForm question={question} setQuestion={setQuestion} onAsk={onAsk} busy={chat.busy} connected={connected} error={chat.error} />
      </CardContent>
    </Card>
  );
}

/**
 * The chat screen (spec §2, §9): project picker, the project's chats (chat?chat_id= reopens one),
 * the conversation with citations, likes, sharing, and an upload panel whose progress bars follow
 * indexing (pushed over the socket, and polled while anything is still indexing).
 */
export function ChatPage() {
  const notify = useNotify();
  const dataProvider = useFirewatchData();
  const translate = useTranslate();
  const [params, setParams] = useSearchParams();
  const { data: projects, refetch: refetchProjects } = useGetList<Project>('projects', {
    pagination: { page: 1, perPage: 200 },
    sort: { field: 'name', order: 'ASC' },
  });
  const { projectId, setProjectId } = useProjectChoice(projects);
  const { chats, setChats, loadChats } = useChatList(projectId);
  const chat = useChat();
  const sharing = useSharing(chat.chatId, setChats);
  const urlChat = params.get('chat_id');

  const socket = useLiveSocket({ token: storage.token }, (frame: Frame) => {
    if (chat.onFrame(frame)) {
      if (frame.type === 'chat_done') void loadChats();
      return;
    }
    const data = frame.data ?? {};
    if (frame.type === 'submissions' && data.project_id === projectId) setSubmissions(data.items as Submission[]);
    if (frame.type === 'submission_status') {
      setSubmissions((list) => list.map((s) => (s.id === data.submission_id ? { ...s, status: data.status, progress: data.progress, error: data.error } : s)));
    }
    if (frame.type === 'liked_message_status') {
      // Curated, the answer shows up among the sources as its Q&A; no message of its own, which would
      // take the place of the thanks for the like a moment after it appeared.
      if (data.status !== 'processed') notify(translate('fw.screens.liked_failed', { reason: String(data.error) }), { type: 'warning' });
      refreshSubmissions();
    }
  });
  const { submissions, setSubmissions, refreshSubmissions } = useSubmissions(projectId, socket.connected, socket.send);

  useEffect(() => {
    void loadChats();
    refreshSubmissions();
  }, [loadChats, refreshSubmissions]);

  // chat?chat_id= reopens a stored chat.
  useEffect(() => {
    if (!urlChat || urlChat === chat.chatId) return;
    dataProvider
      .view<{ id: string; project_id: number | null; shared: boolean; messages: Message[] }>('chats', { id: urlChat })
      .then(({ data: c }) => {
        chat.reset({ chatId: c.id, messages: c.messages });
        setProjectId(c.project_id ?? '');
        sharing.setShareLink(c.shared ? landingLink(c.id) : null);
      })
      .catch((err: Error) => chat.setError(err.message));
  }, [urlChat]);

  useEffect(() => {
    if (chat.chatId && chat.chatId !== urlChat) setParams({ chat_id: chat.chatId }, { replace: true });
  }, [chat.chatId]);

  const newChat = () => {
    chat.reset();
    sharing.setShareLink(null);
    setParams({}, { replace: true });
  };

  return (
    <Box sx={{ mt: 2 }}>
      <Title title="Chat" />
      <Stack direction={{ xs: 'column', lg: 'row' }} spacing={2} sx={{ alignItems: 'flex-start' }}>
        <ChatList
          projects={projects}
          projectId={projectId}
          onProject={(id) => (setProjectId(id), newChat())}
          onCreated={(id) => (void refetchProjects(), setProjectId(id), newChat())}
          newChat={newChat}
          busy={chat.busy}
          chats={chats}
          chatId={chat.chatId}
          onOpen={(id) => setParams({ chat_id: id })}
        />
        <ConversationCard chat={chat} socket={socket} sharing={sharing} projectId={projectId} />
        <SourcesPanel
          projectId={projectId}
          noProjects={projects?.length === 0}
          connected={socket.connected}
          request={socket.request}
          submissions={submissions}
          setSubmissions={setSubmissions}
          refreshSubmissions={refreshSubmissions}
        />
      </Stack>
    </Box>
  );
}
