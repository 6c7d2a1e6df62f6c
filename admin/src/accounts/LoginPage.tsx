import { useEffect, useState } from 'react';
import { Alert, Box, Button, Card, CardContent, Divider, Link, Stack, Tab, Tabs, TextField, Typography } from '@mui/material';
import LocalFireDepartmentIcon from '@mui/icons-material/LocalFireDepartment';
import { useLocation } from 'react-router-dom';
import { organization } from '../core/org.js';
import { acceptInvitation, authProvider, sendCode, signInProviders, type SignInProvider } from '../core/authProvider.js';

type Mode = 'password' | 'code';

type Location = ReturnType<typeof useLocation>;

/** Signs in, then a full load (the app starts afresh with the new session: resources, caches) on the page asked for. */
async function login(location: Location, params: { email: string; password?: string; code?: string }) {
  await authProvider.login(params);
  const next = (location.state as { nextPathname?: string; nextSearch?: string } | null)?.nextPathname;
  const target =
    next && next.startsWith(`/${organization}/`) && !next.includes('/auth/')
      ? next + ((location.state as { nextSearch?: string }).nextSearch ?? '')
      : `/${organization}/`;
  window.location.replace(target);
}

/** One step at a time: `busy` while it runs, its failure as `error`. */
function useStep() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function run(step: () => Promise<unknown>) {
    setBusy(true);
    setError(null);
    try {
      await step();
    } catch (err) {
      setError((err as Error).message || 'Sign-in failed. Please try again.');
    } finally {
      setBusy(false);
    }
  }
  return { busy, error, setError, run };
}

/** Google (or an OpenID Connect provider) only where the server is configured for it. */
function ProviderButtons() {
  const [providers, setProviders] = useState<SignInProvider[]>([]);
  useEffect(() => {
    signInProviders().then(setProviders, () => setProviders([]));
  }, []);
  if (!providers.length) return null;
  return (
    <Stack spacing={1} sx={{ mb: 2 }}>
      {providers.map((p) => (
        <Button key={p.id} variant="outlined" href={p.url} fullWidth>
          Sign in with {p.name}
        </Button>
      ))}
      <Divider>or</Divider>
    </Stack>
  );
}

/** `?invitation=` (an invitation e-mail's link): accept it, or sign in with the invited address. */
function InvitationOffer({ invitation, busy, run }: { invitation: string; busy: boolean; run: (step: () => Promise<unknown>) => Promise<void> }) {
  return (
    <Stack spacing={1} sx={{ mb: 2 }}>
      <Typography variant="body2">You are invited to join {organization}.</Typography>
      <Button
        variant="contained"
        disabled={busy}
        onClick={() =>
          void run(async () => {
            await acceptInvitation(invitation);
            window.location.replace(`/${organization}/`);
          })
        }
      >
        Accept invitation
      </Button>
      <Typography variant="body2" color="text.secondary">
        Or sign in below with the invited e-mail address.
      </Typography>
    </Stack>
  );
}

function LoginHeading() {
  return (
    <>
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center', mb: 1 }}>
        <LocalFireDepartmentIcon color="error" />
        <Typography variant="h5" component="h1">
          Sign in to Firewatch
        </Typography>
      </Stack>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
        Organization: <strong>{organization}</strong>
      </Typography>
    </>
  );
}

function ModeTabs({ mode, onChange }: { mode: Mode; onChange: (mode: Mode) => void }) {
  return (
    <Tabs value={mode} onChange={(_, value: Mode) => onChange(value)} variant="fullWidth" sx={{ mb: 2 }}>
      <Tab value="password" label="Password" />
      <Tab value="code" label="E-mail code" />
    </Tabs>
  );
}

/** /{organization}/auth/login: password, or a six-digit code sent by e-mail; `?invitation=` (an invitation e-mail's link) accepts one. */
export function LoginPage() {
  const location = useLocation();
  const invitation = new URLSearchParams(location.search).get('invitation');
  const [mode, setMode] = useState<Mode>('password');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [codeSent, setCodeSent] = useState(false);
  const { busy, error, setError, run } = useStep();
  const [info, setInfo] = useState<string | null>(null);

  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    if (!email.trim()) return setError('Enter your e-mail address.');
    if (mode === 'password') {
      if (!password) return setError('Enter your password.');
      return void run(() => login(location, { email, password }));
    }
    if (!codeSent)
      return void run(async () => {
        setInfo(await sendCode(email));
        setCodeSent(true);
      });
    if (!code.trim()) return setError('Enter the code from the e-mail.');
    return void run(() => login(location, { email, code: code.trim() }));
  };

  return (
    <Box component="main" sx={{ minHeight: '100vh', display: 'flex', alignItems: 'center', justifyContent: 'center', bgcolor: 'background.default', p: 2 }}>
      <Card sx={{ width: 400, maxWidth: '100%' }}>
        <CardContent>
          <LoginHeading />
          <ProviderButtons />
          <ModeTabs
            mode={mode}
            onChange={(value) => {
              setMode(value);
              setError(null);
              setInfo(null);
              setCodeSent(false);
            }}
          />
          {invitation ? <InvitationOffer invitation={invitation} busy={busy} run={run} /> : null}
          <form onSubmit={submit} noValidate>
            <Stack spacing={2}>
              <TextField
                label="E-mail"
                type="email"
                autoComplete="email"
                value={email}
                onChange={(e) => setEmail(e.target.value)}
                disabled={codeSent}
                autoFocus
                fullWidth
              />
              {mode === 'password' ? (
                <TextField
                  label="Password"
                  type="password"
                  autoComplete="current-password"
                  value={password}
                  onChange={(e) => setPassword(e.target.value)}
                  fullWidth
                />
              ) : null}
              {mode === 'code' && codeSent ? (
                <TextField
                  label="Code"
                  autoComplete="one-time-code"
                  value={code}
                  onChange={(e) => setCode(e.target.value)}
                  slotProps={{ htmlInput: { inputMode: 'numeric' } }}
                  autoFocus
                  fullWidth
                />
              ) : null}
              {info ? (
                <Alert severity="success" role="status">
                  {info}
                </Alert>
              ) : null}
              {error ? (
                <Alert severity="error" role="alert">
                  {error}
                </Alert>
              ) : null}
              <Button type="submit" variant="contained" disabled={busy} fullWidth>
                {mode === 'password' ? 'Sign in' : codeSent ? 'Verify code' : 'Send code'}
              </Button>
              {mode === 'code' && codeSent ? (
                <Link component="button" type="button" variant="body2" onClick={() => (setCodeSent(false), setCode(''), setInfo(null))}>
                  Use another e-mail or send a new code
                </Link>
              ) : null}
            </Stack>
          </form>
        </CardContent>
      </Card>
    </Box>
  );
}
