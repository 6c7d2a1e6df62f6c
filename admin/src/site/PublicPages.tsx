import { useMemo, type ReactNode } from 'react';
import {
  AppBar,
  Box,
  Button,
  Card,
  CardActionArea,
  CardContent,
  Container,
  createTheme,
  CssBaseline,
  Link,
  Stack,
  ThemeProvider,
  Toolbar,
  Typography,
  type ThemeOptions,
} from '@mui/material';
import { Link as RouterLink, useParams } from 'react-router-dom';
import { organization, storage } from '../core/org.js';
import { darkTheme, lightTheme } from '../core/theme.js';
import { SessionWatch } from '../core/SessionWatch.js';
import { SiteLinks } from './SiteLinks.js';
import { NotFoundContent } from './NotFound.js';
import { PUBLIC_PATHS } from './paths.js';
import { useSite, type SitePage } from './site.js';

/** Plain text, a paragraph per blank-line-separated block. */
export function Paragraphs({ text }: { text: string }) {
  return (
    <>
      {text
        .split(/\n\s*\n/)
        .map((p) => p.trim())
        .filter(Boolean)
        .map((p, i) => (
          <Typography key={i} variant="body1" sx={{ mb: 2, whiteSpace: 'pre-line' }}>
            {p}
          </Typography>
        ))}
    </>
  );
}

const when = (iso: string) => new Date(iso).toLocaleDateString(undefined, { year: 'numeric', month: 'long', day: 'numeric' });

/** The public pages' frame: the organization's name, its pages, its contact menu, in the theme the visitor chose. */
function PublicShell({ title, children }: { title: string; children: ReactNode }) {
  const theme = useMemo(() => createTheme((localStorage.getItem('dark_theme') === 'true' ? darkTheme : lightTheme) as ThemeOptions), []);
  const home = storage.token ? `/${organization}/chat` : `/${organization}/landing`;
  return (
    <ThemeProvider theme={theme}>
      <CssBaseline />
      <title>{`${title} · Firewatch`}</title>
      <AppBar position="static" color="primary" enableColorOnDark>
        <Toolbar sx={{ gap: 1, flexWrap: 'wrap' }}>
          <Link component={RouterLink} to={home} color="inherit" underline="none" sx={{ fontWeight: 700, mr: 2 }}>
            Firewatch
          </Link>
          <Box component="nav" aria-label="Site" sx={{ display: 'flex', gap: 1, flexGrow: 1, flexWrap: 'wrap' }}>
            <Button color="inherit" component={RouterLink} to={PUBLIC_PATHS.blog}>
              Blog
            </Button>
            <Button color="inherit" component={RouterLink} to={PUBLIC_PATHS.faq}>
              FAQ
            </Button>
          </Box>
          <SiteLinks />
        </Toolbar>
      </AppBar>
      <Container component="main" maxWidth="md" sx={{ py: 4 }}>
        {children}
      </Container>
      <Container component="footer" maxWidth="md" sx={{ pb: 4 }}>
        <Stack direction="row" spacing={3} sx={{ borderTop: 1, borderColor: 'divider', pt: 2 }}>
          <Link component={RouterLink} to={PUBLIC_PATHS.terms}>
            Terms of service
          </Link>
          <Link component={RouterLink} to={PUBLIC_PATHS.privacy}>
            Privacy policy
          </Link>
          <Link component={RouterLink} to={PUBLIC_PATHS.faq}>
            FAQ
          </Link>
        </Stack>
      </Container>
      <SessionWatch signedIn={false} />
    </ThemeProvider>
  );
}

export function NotFoundPage() {
  return (
    <PublicShell title="Page not found">
      <NotFoundContent />
    </PublicShell>
  );
}

export function ServerErrorPage() {
  return (
    <PublicShell title="Something has gone wrong">
      <Typography variant="h4" component="h1" gutterBottom>
        Something has gone wrong
      </Typography>
      <Typography sx={{ mb: 2 }}>Something has gone wrong. Please, retry or let your admin know that you received this error.</Typography>
      <Button variant="contained" onClick={() => (window.history.length > 1 ? window.history.back() : window.location.assign(`/${organization}/`))}>
        Retry
      </Button>
    </PublicShell>
  );
}

const HEADINGS = { terms: 'Terms of service', privacy: 'Privacy policy', faq: 'Frequently asked questions' } as const;

/** Terms, privacy policy or FAQ: the latest published entry of its kind. */
export function DocumentPage({ kind }: { kind: keyof typeof HEADINGS }) {
  const { site, failed } = useSite();
  const page = site?.pages.find((p) => p.kind === kind);
  return (
    <PublicShell title={HEADINGS[kind]}>
      <Typography variant="h4" component="h1" gutterBottom>
        {page?.title ?? HEADINGS[kind]}
      </Typography>
      {failed ? <Typography>This page cannot be loaded right now. Please retry later.</Typography> : null}
      {site && !page ? <Typography>This organization has not published its {HEADINGS[kind].toLowerCase()} yet.</Typography> : null}
      {page ? (
        <>
          <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
            Last updated {when(page.updated_at)}
          </Typography>
          <Paragraphs text={page.body} />
        </>
      ) : null}
    </PublicShell>
  );
}

function PostCard({ post }: { post: SitePage }) {
  return (
    <Card variant="outlined">
      <CardActionArea component={RouterLink} to={`${PUBLIC_PATHS.blog}/${post.id}`}>
        <CardContent>
          <Typography variant="h6" component="h2">
            {post.title}
          </Typography>
          <Typography variant="body2" color="text.secondary">
            {when(post.created_at)}
          </Typography>
          <Typography variant="body2" sx={{ mt: 1 }}>
            {post.body.length > 200 ? `${post.body.slice(0, 200).replace(/\s+\S*$/, '')}…` : post.body}
          </Typography>
        </CardContent>
      </CardActionArea>
    </Card>
  );
}

/** blog: the published posts, newest first; blog/{id}: one post. */
export function BlogPage() {
  const { id } = useParams();
  const { site, failed } = useSite();
  const posts = site?.pages.filter((p) => p.kind === 'blog') ?? [];
  if (id !== undefined) {
    const post = posts.find((p) => String(p.id) === id);
    if (site && !post) return <NotFoundPage />;
    return (
      <PublicShell title={post?.title ?? 'Blog'}>
        <Link component={RouterLink} to={PUBLIC_PATHS.blog}>
          All posts
        </Link>
        {post ? (
          <article>
            <Typography variant="h4" component="h1" sx={{ mt: 2 }}>
              {post.title}
            </Typography>
            <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
              {when(post.created_at)}
            </Typography>
            <Paragraphs text={post.body} />
          </article>
        ) : null}
      </PublicShell>
    );
  }
  return (
    <PublicShell title="Blog">
      <Typography variant="h4" component="h1" gutterBottom>
        Blog
      </Typography>
      {failed ? <Typography>The blog cannot be loaded right now. Please retry later.</Typography> : null}
      {site && !posts.length ? <Typography>No posts yet.</Typography> : null}
      <Stack spacing={2}>
        {posts.map((p) => (
          <PostCard key={p.id} post={p} />
        ))}
      </Stack>
    </PublicShell>
  );
}
