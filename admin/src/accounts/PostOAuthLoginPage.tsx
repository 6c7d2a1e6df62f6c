import { useEffect, useState } from 'react';
import {
  Alert,
  Box,
  Card,
  CardContent,
  CircularProgress,
  createTheme,
  CssBaseline,
  Link,
  Stack,
  ThemeProvider,
  Typography,
  type ThemeOptions,
} from '@mui/material';
import { organization } from '../core/org.js';
import { signInWithProviderTicket } from '../core/authProvider.js';
import { lightTheme } from '../core/theme.js';

const theme = createTheme(lightTheme as ThemeOptions);

/**
 * /{organization}/auth/post-oauth-login: where the server sends the browser back from Google (or the
 * OIDC provider), with a single-use ticket in the URL fragment. The ticket is exchanged for a session
 * (POST /auth/postoauthlogin); a refused sign-in shows the server's message.
 */
export function PostOAuthLoginPage() {
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const token = new URLSearchParams(window.location.hash.slice(1)).get('token');
    // The ticket leaves the address bar (and history) at once: it is single-use anyway.
    window.history.replaceState(null, '', window.location.pathname);
    if (!token) return setError('This sign-in link is incomplete. Please sign in again.');
    signInWithProviderTicket(token).then(
      (slug) => window.location.replace(`/${slug}/`),
      (err: Error) => setError(err.message || 'Sign-in failed. Please try again.'),
    );
  }, []);
  return (
    <ThemeProvider theme={theme}>
      <CssBaseline />
      <Box component="main" sx={{ minHeight: '100vh', display: 'flex', alignItems: 'center', justifyContent: 'center', p: 2 }}>
        <Card sx={{ width: 400, maxWidth: '100%' }}>
          <CardContent>
            <Typography variant="h5" component="h1" sx={{ mb: 2 }}>
              Signing in to {organization}
            </Typography>
            {error ? (
              <Stack spacing={2}>
                <Alert severity="error" role="alert">
                  {error}
                </Alert>
                <Link href={`/${organization}/auth/login`}>Back to sign-in</Link>
              </Stack>
            ) : (
              <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }}>
                <CircularProgress size={24} />
                <Alert severity="info" role="status" sx={{ flex: 1 }}>
                  Redirecting to your base cluster...
                </Alert>
              </Stack>
            )}
          </CardContent>
        </Card>
      </Box>
    </ThemeProvider>
  );
}
