import { useEffect, useRef, useState } from 'react';
import { useLocation } from 'react-router-dom';
import { Alert, Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle, Snackbar } from '@mui/material';
import { organization, storage } from './org.js';
import {
  BUILD_ID,
  EXPIRED_MESSAGE,
  msUntilExpiryCheck,
  onExpired,
  onTemporaryMessage,
  recordVisit,
  RULES,
  selectedUniverse,
  servedBuild,
  showTemporaryMessage,
  UPDATING_MESSAGE,
  visitIsStale,
  waitForToken,
  type TemporaryMessage,
} from './session.js';

/** Reloads after showing 'Updating to latest version...' for 1.5 s. */
function updateNow() {
  showTemporaryMessage({ text: UPDATING_MESSAGE, severity: 'info' }, RULES.updatingNoticeMs);
  setTimeout(() => window.location.reload(), RULES.updatingNoticeMs);
}

/** The session is over: the page reloads on the sign-in screen, which returns here once signed in. */
function refreshIntoSignIn() {
  storage.token = null;
  window.location.assign(`/${organization}/auth/login`);
}

/** 'Refresh Required' once the token is 10 s from expiry (or a request was refused as expired). */
function ExpiryDialog({ watchToken }: { watchToken: boolean }) {
  const [expired, setExpired] = useState(false);
  useEffect(() => onExpired(() => setExpired(true)), []);
  useEffect(() => {
    if (!watchToken) return;
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const schedule = async () => {
      // Right after sign-in the token may land a moment after the shell renders.
      const token = await waitForToken(5_000, abort.signal);
      const wait = msUntilExpiryCheck(token);
      if (wait === null || abort.signal.aborted) return;
      // setTimeout's limit is about 24.8 days; a 7-day session is well within it.
      timer = setTimeout(
        () => {
          // Signed out or signed in again meanwhile: look at the token now stored.
          const again = msUntilExpiryCheck(storage.token);
          if (again === 0) setExpired(true);
          else if (again !== null) void schedule();
        },
        Math.min(wait, 2 ** 31 - 1),
      );
    };
    void schedule();
    return () => {
      abort.abort();
      clearTimeout(timer);
    };
  }, [watchToken]);
  return (
    <Dialog open={expired} aria-labelledby="refresh-required-title" aria-describedby="refresh-required-text">
      <DialogTitle id="refresh-required-title">Refresh Required</DialogTitle>
      <DialogContent>
        <DialogContentText id="refresh-required-text">{EXPIRED_MESSAGE}</DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button variant="contained" onClick={refreshIntoSignIn} autoFocus>
          Refresh
        </Button>
      </DialogActions>
    </Dialog>
  );
}

/** The temporary message banner: one message, hidden after its timeout (default 30 s) or when closed. */
function TemporaryBanner() {
  const [message, setMessage] = useState<TemporaryMessage | null>(null);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const off = onTemporaryMessage((next, timeoutMs) => {
      clearTimeout(timer);
      setMessage(next);
      timer = setTimeout(() => setMessage(null), timeoutMs);
    });
    return () => {
      off();
      clearTimeout(timer);
    };
  }, []);
  if (!message) return null;
  return (
    <Alert
      severity={message.severity ?? 'info'}
      role="status"
      data-testid="temporary-message"
      onClose={() => setMessage(null)}
      sx={{ position: 'fixed', top: 56, left: '50%', transform: 'translateX(-50%)', zIndex: (t) => t.zIndex.snackbar, boxShadow: 3 }}
    >
      {message.text}
    </Alert>
  );
}

/**
 * Spec §9's update rules: a newer build served shows 'Software update is available' (60 s, 'Refresh
 * Now'); with an update waiting, the page reloads itself after 15 min without activity or 30 min
 * hidden; a page whose last visit is over 24 h old reloads at once.
 */
function UpdateWatch() {
  const { pathname } = useLocation();
  const [update, setUpdate] = useState(false);
  const [snackbar, setSnackbar] = useState(false);
  const lastActive = useRef(Date.now());
  // A page opened in a background tab starts hidden.
  const hiddenSince = useRef<number | null>(document.visibilityState === 'hidden' ? Date.now() : null);
  const updateWaiting = useRef(false);

  const check = useRef(async () => {
    if (updateWaiting.current) return;
    const served = await servedBuild();
    if (served && served !== BUILD_ID && !updateWaiting.current) {
      updateWaiting.current = true;
      setUpdate(true);
      setSnackbar(true);
    }
  });

  // On load: the forced reload of a stale page, then the visit is recorded.
  useEffect(() => {
    selectedUniverse();
    if (visitIsStale()) {
      recordVisit();
      updateNow();
      return;
    }
    recordVisit();
  }, []);

  // Each navigation: a visit, and a look for a newer build.
  useEffect(() => {
    recordVisit();
    void check.current();
  }, [pathname]);

  useEffect(() => {
    const active = () => {
      lastActive.current = Date.now();
    };
    const visibility = () => {
      if (document.visibilityState === 'hidden') {
        hiddenSince.current = Date.now();
        return;
      }
      const hiddenFor = hiddenSince.current === null ? 0 : Date.now() - hiddenSince.current;
      hiddenSince.current = null;
      // Coming back to the tab is activity: the 15-minute rule counts from here.
      lastActive.current = Date.now();
      if (updateWaiting.current && hiddenFor >= RULES.refreshWhenHiddenMs) return updateNow();
      if (hiddenFor >= RULES.forcedReloadMs) return updateNow();
      recordVisit();
      void check.current();
    };
    const events = ['pointerdown', 'pointermove', 'keydown', 'wheel', 'touchstart'] as const;
    for (const e of events) window.addEventListener(e, active, { passive: true });
    document.addEventListener('visibilitychange', visibility);
    const poll = setInterval(() => void check.current(), RULES.versionPollMs);
    // Once a minute, with an update waiting: a visible page nobody used for 15 min refreshes, a hidden
    // one after 30 min hidden (spec §9: a tab in the background gets the longer wait, not both).
    const idle = setInterval(() => {
      if (!updateWaiting.current) return;
      const now = Date.now();
      if (hiddenSince.current !== null) {
        if (now - hiddenSince.current >= RULES.refreshWhenHiddenMs) updateNow();
      } else if (now - lastActive.current >= RULES.refreshWhenInactiveMs) updateNow();
    }, 60_000);
    return () => {
      for (const e of events) window.removeEventListener(e, active);
      document.removeEventListener('visibilitychange', visibility);
      clearInterval(poll);
      clearInterval(idle);
    };
  }, []);

  return (
    <Snackbar
      open={update && snackbar}
      autoHideDuration={RULES.updateSnackbarMs}
      onClose={(_, reason) => reason !== 'clickaway' && setSnackbar(false)}
      anchorOrigin={{ vertical: 'bottom', horizontal: 'left' }}
      message="Software update is available"
      action={
        <Button color="inherit" size="small" onClick={updateNow}>
          Refresh Now
        </Button>
      }
      data-testid="update-snackbar"
    />
  );
}

/** The shell's session and update behaviour; `signedIn` turns on the token expiry check. */
export function SessionWatch({ signedIn }: { signedIn: boolean }) {
  return (
    <>
      <ExpiryDialog watchToken={signedIn} />
      <UpdateWatch />
      <TemporaryBanner />
    </>
  );
}
