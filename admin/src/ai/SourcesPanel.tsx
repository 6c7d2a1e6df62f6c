import { useRef, useState } from 'react';
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
  MenuItem,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import DeleteIcon from '@mui/icons-material/DeleteOutline';
import { Confirm, useNotify, useTranslate } from 'react-admin';
import { useFirewatchData } from '../core/queries.js';
import { detailText, type Frame } from './socket.js';
import { relativeTime } from './time.js';
import { uploadFile } from './upload.js';

export interface Submission {
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

type Request = (type: string, data: unknown) => Promise<Frame>;

/** Files and video links sent into the project, with who may retrieve them and whether to index them now. */
function useSourceUpload(projectId: number | '', request: Request, refreshSubmissions: () => void) {
  const notify = useNotify();
  const [videoUrl, setVideoUrl] = useState('');
  const [upload, setUpload] = useState({ sensitivityLevel: 'internal', buildIndex: true });
  const [uploadError, setUploadError] = useState<string | null>(null);
  /** The file being sent and the share of its bytes the server has taken (0 to 1). */
  const [sending, setSending] = useState<{ name: string; sent: number } | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);

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
  return { videoUrl, setVideoUrl, upload, setUpload, uploadError, sending, fileInput, onFiles, onVideo };
}

/** Who may retrieve the next source, whether to index it now, and the file and video-link inputs. */
function UploadControls(props: { projectId: number | ''; noProjects: boolean; connected: boolean; request: Request; refreshSubmissions: () => void }) {
  const { projectId, noProjects, connected } = props;
  const translate = useTranslate();
  const { videoUrl, setVideoUrl, upload, setUpload, uploadError, sending, fileInput, onFiles, onVideo } = useSourceUpload(
    projectId,
    props.request,
    props.refreshSubmissions,
  );
  return (
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
      {projectId === '' ? <Alert severity="info">Files go into a project: choose one above{noProjects ? ', or create one' : ''}.</Alert> : null}
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
  );
}

/** One source: its name, status and level, its indexing progress, and its delete button. */
function SubmissionItem({ s, onDelete }: { s: Submission; onDelete: () => void }) {
  return (
    <Box component="li" sx={{ listStyle: 'none', py: 1 }} data-testid="submission">
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
        <IconButton size="small" aria-label={`Delete ${s.fileName ?? s.title}`} onClick={onDelete}>
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
  );
}

/**
 * The chat page's sources panel: uploads into the project (files, video links) and the project's
 * sources, whose progress bars follow indexing.
 */
export function SourcesPanel(props: {
  projectId: number | '';
  noProjects: boolean;
  connected: boolean;
  request: Request;
  submissions: Submission[];
  setSubmissions: React.Dispatch<React.SetStateAction<Submission[]>>;
  refreshSubmissions: () => void;
}) {
  const { submissions, setSubmissions } = props;
  const notify = useNotify();
  const dataProvider = useFirewatchData();
  const [removing, setRemoving] = useState<Submission | null>(null);
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
  return (
    <Card sx={{ flex: 1, width: '100%' }}>
      <CardContent>
        <Typography variant="h6" component="h2" sx={{ mb: 1 }}>
          Sources
        </Typography>
        <UploadControls
          projectId={props.projectId}
          noProjects={props.noProjects}
          connected={props.connected}
          request={props.request}
          refreshSubmissions={props.refreshSubmissions}
        />
        <List dense aria-label="Submissions" sx={{ mt: 1 }}>
          {submissions.map((s) => (
            <SubmissionItem key={s.id} s={s} onDelete={() => setRemoving(s)} />
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
  );
}
