import { useCallback, useEffect, useRef, useState } from 'react';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  Checkbox,
  Chip,
  FormControlLabel,
  IconButton,
  LinearProgress,
  List,
  ListItem,
  ListItemButton,
  ListItemText,
  MenuItem,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import DeleteIcon from '@mui/icons-material/DeleteOutline';
import { Confirm, Title, useGetList, useNotify, useTranslate } from 'react-admin';
import { useSearchParams } from 'react-router-dom';
import { organization, storage } from '../core/org.js';
import type { ItemsPage } from '../core/dataProvider.js';
import { useFirewatchData } from '../core/queries.js';
import { Conversation, QuestionForm, type Message } from './Conversation.js';
import { detailText, NOT_CONNECTED, useLiveSocket, type Frame } from './socket.js';
import { relativeTime } from './time.js';
import { useChat } from './useChat.js';
import { uploadFile } from './upload.js';
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
interface Submission {
  id: number;
  title: string;
  fileName: string | null;
  kind: string;
  status: 'uploaded' | 'indexing' | 'indexed' | 'failed';
  progress: number;
  error: string | null;
  sensitivityLevel: string;
  created_at: string;
}

/** How each sensitivity level reads, and who may retrieve it. */
const LEVELS: Record<string, string> = {
  public: 'Public (also anonymous visitors)',
  internal: 'Internal (members)',
  restricted: 'Restricted (Admins and you)',
};

const ACCEPT = '.txt,.md,.markdown,.html,.htm,.pdf,.docx,.csv,.json,.vtt,.srt';

/**
 * The chat screen (spec §2, §9): project picker, the project's chats (chat?chat_id= reopens one),
 * the conversation with citations, likes, sharing, and an upload panel whose progress bars follow
 * indexing (pushed over the socket, and polled while anything is still indexing).
 */
export function ChatPage() {
  const notify = useNotify();
  const dataProvider = useFirewatchData();
  const translate = useTranslate();
  const [videoUrl, setVideoUrl] = useState('');
  const [params, setParams] = useSearchParams();
  const { data: projects, refetch: refetchProjects } = useGetList<{ id: number; name: string }>('projects', {
    pagination: { page: 1, perPage: 200 },
    sort: { field: 'name', order: 'ASC' },
  });
  // '' is "no project": the chats asked before any project existed stay reachable there.
  const [projectId, setProjectIdState] = useState<number | ''>('');
  const [picked, setPicked] = useState(false);
  const setProjectId = (id: number | '') => {
    setProjectIdState(id);
    setPicked(true);
    if (id !== '') rememberProject(id);
  };
  const [chats, setChats] = useState<ChatSummary[]>([]);
  const [submissions, setSubmissions] = useState<Submission[]>([]);
  const [question, setQuestion] = useState('');
  const [upload, setUpload] = useState({ sensitivityLevel: 'internal', buildIndex: true });
  const [uploadError, setUploadError] = useState<string | null>(null);
  /** The file being sent and the share of its bytes the server has taken (0 to 1). */
  const [sending, setSending] = useState<{ name: string; sent: number } | null>(null);
  const [shareLink, setShareLink] = useState<string | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const chat = useChat();
  const urlChat = params.get('chat_id');

  const { connected, send, request } = useLiveSocket({ token: storage.token }, (frame: Frame) => {
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

  // The project last chosen (localStorage `project`), else the first one.
  useEffect(() => {
    if (picked || !projects?.length) return;
    const stored = storedProject();
    setProjectIdState(projects.some((p) => p.id === stored) ? stored! : projects[0]!.id);
    setPicked(true);
  }, [projects, picked]);

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

  const refreshSubmissions = useCallback(() => {
    if (projectId === '' || !connected) return;
    try {
      send('fetch_submissions', { project_id: projectId });
    } catch {
      /* reconnecting */
    }
  }, [projectId, connected, send]);

  useEffect(() => {
    void loadChats();
    refreshSubmissions();
  }, [loadChats, refreshSubmissions]);

  // Poll while something is indexing (another server process may be doing the work).
  const indexing = submissions.some((s) => s.status === 'uploaded' || s.status === 'indexing');
  useEffect(() => {
    if (!indexing) return;
    const timer = setInterval(refreshSubmissions, 5000);
    return () => clearInterval(timer);
  }, [indexing, refreshSubmissions]);

  // chat?chat_id= reopens a stored chat.
  useEffect(() => {
    if (!urlChat || urlChat === chat.chatId) return;
    dataProvider
      .view<{ id: string; project_id: number | null; shared: boolean; messages: Message[] }>('chats', { id: urlChat })
      .then(({ data: c }) => {
        chat.reset({ chatId: c.id, messages: c.messages });
        setProjectId(c.project_id ?? '');
        setShareLink(c.shared ? landingLink(c.id) : null);
      })
      .catch((err: Error) => chat.setError(err.message));
  }, [urlChat]);

  useEffect(() => {
    if (chat.chatId && chat.chatId !== urlChat) setParams({ chat_id: chat.chatId }, { replace: true });
  }, [chat.chatId]);

  const landingLink = (id: string) => `${window.location.origin}/${organization}/landing?chat_id=${id}`;

  const newChat = () => {
    chat.reset();
    setShareLink(null);
    setParams({}, { replace: true });
  };

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

  const [confirmShare, setConfirmShare] = useState(false);
  const [removing, setRemoving] = useState<Submission | null>(null);
  const unshare = async () => {
    if (!chat.chatId) return;
    try {
      await dataProvider.action('chats', { id: chat.chatId, method: 'PUT', data: { shared: false } });
      setShareLink(null);
      setChats((list) => list.map((c) => (c.id === chat.chatId ? { ...c, shared: false } : c)));
      notify('The chat is no longer shared: its link stops working.', { type: 'info' });
    } catch (err) {
      notify((err as Error).message, { type: 'error' });
    }
  };
  const removeSource = async (s: Submission) => {
    try {
      await dataProvider.action('submissions', { id: s.id, method: 'DELETE' });
      setSubmissions((list) => list.filter((x) => x.id !== s.id));
      notify(`Source '${s.fileName ?? s.title}' deleted successfully.`, { type: 'success' });
    } catch (err) {
      notify((err as Error).message, { type: 'error' });
    } finally {
      setRemoving(null);
    }
  };
  const share = async () => {
    if (!chat.chatId) return;
    setConfirmShare(false);
    try {
      await dataProvider.action('chats', { id: chat.chatId, method: 'PUT', data: { shared: true } });
      setChats((list) => list.map((c) => (c.id === chat.chatId ? { ...c, shared: true } : c)));
      const link = landingLink(chat.chatId);
      setShareLink(link);
      await navigator.clipboard?.writeText(link).then(
        () => notify('Copied to clipboard.', { type: 'info' }),
        () => undefined,
      );
    } catch (err) {
      notify((err as Error).message, { type: 'error' });
    }
  };

  const onFiles = async (files: FileList | null) => {
    setUploadError(null);
    if (!files?.length) return;
    if (projectId === '') return setUploadError('Upload failed: choose a project first.');
    for (const file of Array.from(files)) {
      setSending({ name: file.name, sent: 0 });
      try {
        const answer = await uploadFile(
          file,
          {
            project_id: projectId,
            fileName: file.name,
            fileType: file.type || null,
            buildIndex: upload.buildIndex,
            sensitivityLevel: upload.sensitivityLevel,
          },
          (sent) => setSending({ name: file.name, sent }),
        );
        notify(answer.message, { type: 'info' });
      } catch (err) {
        setUploadError(`Upload of ${file.name} failed: ${(err as Error).message}`);
      } finally {
        setSending(null);
      }
      refreshSubmissions();
    }
    if (fileInput.current) fileInput.current.value = '';
  };

  const onVideo = async (event: React.FormEvent) => {
    event.preventDefault();
    setUploadError(null);
    if (projectId === '' || !videoUrl.trim()) return;
    try {
      const reply = await request('video_transcript_submission', {
        url: videoUrl.trim(),
        buildIndex: upload.buildIndex,
        project_id: projectId,
        sensitivityLevel: upload.sensitivityLevel,
      });
      if (reply.type === 'error') return setUploadError(detailText(reply.data));
      if (reply.data?.status !== 'success') return setUploadError(String(reply.data?.message ?? 'Submission failed.'));
      notify(String(reply.data.message), { type: 'info' });
      setVideoUrl('');
      refreshSubmissions();
    } catch (err) {
      setUploadError((err as Error).message);
    }
  };

  return (
    <Box sx={{ mt: 2 }}>
      <Title title="Chat" />
      <Stack direction={{ xs: 'column', lg: 'row' }} spacing={2} sx={{ alignItems: 'flex-start' }}>
        <Card sx={{ width: { xs: '100%', lg: 260 }, flexShrink: 0 }}>
          <CardContent>
            {projects && projects.length === 0 ? <NewProject onCreated={(id) => (void refetchProjects(), setProjectId(id), newChat())} /> : null}
            <TextField
              select
              size="small"
              fullWidth
              label="Project"
              value={projectId}
              onChange={(e) => (setProjectId(e.target.value === '' ? '' : Number(e.target.value)), newChat())}
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
            <Button fullWidth sx={{ mt: 1 }} onClick={newChat} disabled={chat.busy}>
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
                  <ListItemButton selected={c.id === chat.chatId} onClick={() => setParams({ chat_id: c.id })}>
                    <ListItemText primary={c.title} secondary={`${relativeTime(c.updated_at)}${c.shared ? ' · shared' : ''}`} />
                  </ListItemButton>
                </ListItem>
              ))}
            </List>
          </CardContent>
        </Card>

        <Card sx={{ flex: 2, width: '100%' }}>
          <CardContent>
            <Stack direction="row" spacing={1} sx={{ alignItems: 'center', mb: 2 }}>
              <Chip size="small" color={connected ? 'success' : 'default'} label={connected ? 'Connected' : 'Reconnecting…'} />
              <Box sx={{ flex: 1 }} />
              {shareLink ? (
                <Button size="small" variant="outlined" onClick={() => void unshare()}>
                  Stop sharing
                </Button>
              ) : (
                <Button size="small" variant="outlined" onClick={() => setConfirmShare(true)} disabled={!chat.chatId || chat.busy}>
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
            <ShareDialog chatId={chat.chatId} open={confirmShare} onCancel={() => setConfirmShare(false)} onShare={() => void share()} />
            {chat.messages.length === 0 ? (
              <Typography color="text.secondary">Ask about the documents, notes and transcripts of this project.</Typography>
            ) : null}
            <Conversation messages={chat.messages} busy={chat.busy} chatId={chat.chatId} request={request} onFeedback={onFeedback} followsActiveObject />
            <QuestionForm question={question} setQuestion={setQuestion} onAsk={onAsk} busy={chat.busy} connected={connected} error={chat.error} />
          </CardContent>
        </Card>

        <Card sx={{ flex: 1, width: '100%' }}>
          <CardContent>
            <Typography variant="h6" component="h2" sx={{ mb: 1 }}>
              Sources
            </Typography>
            <Stack spacing={1.5}>
              <TextField
                select
                size="small"
                label="Who may retrieve it"
                value={upload.sensitivityLevel}
                onChange={(e) => setUpload({ ...upload, sensitivityLevel: e.target.value })}
              >
                <MenuItem value="public">Public (also anonymous visitors)</MenuItem>
                <MenuItem value="internal">Internal (members)</MenuItem>
                <MenuItem value="restricted">Restricted (Admins and you)</MenuItem>
              </TextField>
              <FormControlLabel
                control={<Checkbox checked={upload.buildIndex} onChange={(e) => setUpload({ ...upload, buildIndex: e.target.checked })} />}
                label="Index for search now"
              />
              <Button variant="outlined" component="label" disabled={projectId === '' || sending !== null}>
                Upload files
                <input ref={fileInput} hidden type="file" multiple accept={ACCEPT} data-testid="upload-input" onChange={(e) => void onFiles(e.target.files)} />
              </Button>
              <Typography variant="caption" color="text.secondary">
                Text, Markdown, HTML, PDF, DOCX, CSV, JSON, WebVTT and SRT captions.
              </Typography>
              <Stack component="form" spacing={1} onSubmit={onVideo} sx={{ alignItems: 'flex-start' }}>
                <TextField
                  size="small"
                  type="url"
                  label={translate('fw.screens.youtube_link')}
                  placeholder="https://www.youtube.com/watch?v=…"
                  value={videoUrl}
                  onChange={(e) => setVideoUrl(e.target.value)}
                  helperText={translate('fw.screens.youtube_help')}
                  fullWidth
                />
                <Button type="submit" variant="outlined" disabled={!connected || projectId === '' || !videoUrl.trim()}>
                  {translate('fw.screens.youtube_add')}
                </Button>
              </Stack>
              {projectId === '' ? (
                <Alert severity="info">Files go into a project: choose one above{projects?.length === 0 ? ', or create one' : ''}.</Alert>
              ) : null}
              {sending ? (
                <Box data-testid="upload-progress">
                  <Typography variant="caption" color="text.secondary">
                    Uploading {sending.name}: {Math.round(sending.sent * 100)}%
                  </Typography>
                  <LinearProgress variant="determinate" value={sending.sent * 100} aria-label={`Uploading ${sending.name}`} />
                </Box>
              ) : null}
              {uploadError ? <Alert severity="error">{uploadError}</Alert> : null}
            </Stack>
            <List dense aria-label="Submissions" sx={{ mt: 1 }}>
              {submissions.map((s) => (
                <Box key={s.id} component="li" sx={{ listStyle: 'none', py: 1 }} data-testid="submission">
                  <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                    <Typography variant="body2" sx={{ flex: 1, overflow: 'hidden', textOverflow: 'ellipsis' }}>
                      {s.fileName ?? s.title}
                    </Typography>
                    <Chip
                      size="small"
                      label={s.status}
                      color={s.status === 'indexed' ? 'success' : s.status === 'failed' ? 'error' : 'default'}
                      data-testid="submission-status"
                    />
                    <IconButton size="small" aria-label={`Delete ${s.fileName ?? s.title}`} onClick={() => setRemoving(s)}>
                      <DeleteIcon fontSize="small" />
                    </IconButton>
                  </Stack>
                  <Typography variant="caption" color="text.secondary" component="div" data-testid="submission-level">
                    {LEVELS[s.sensitivityLevel] ?? s.sensitivityLevel}
                  </Typography>
                  {s.status === 'indexing' || s.status === 'uploaded' ? (
                    <LinearProgress
                      variant={s.status === 'indexing' ? 'determinate' : 'indeterminate'}
                      value={s.progress}
                      aria-label={`Indexing ${s.fileName ?? s.title}`}
                      sx={{ mt: 0.5 }}
                    />
                  ) : null}
                  {s.error ? (
                    <Typography variant="caption" color="error">
                      {s.error}
                    </Typography>
                  ) : (
                    <Typography variant="caption" color="text.secondary">
                      {relativeTime(s.created_at)}
                    </Typography>
                  )}
                </Box>
              ))}
            </List>
            <Confirm
              isOpen={!!removing}
              title="Delete this source?"
              content={`'${removing?.fileName ?? removing?.title ?? ''}' and its passages are removed; answers stop citing it.`}
              confirm="Delete"
              onConfirm={() => removing && void removeSource(removing)}
              onClose={() => setRemoving(null)}
            />
          </CardContent>
        </Card>
      </Stack>
    </Box>
  );
}
