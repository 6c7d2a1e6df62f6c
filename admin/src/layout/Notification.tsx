import { useEffect, useMemo, useRef } from 'react';
import { useLocation } from 'react-router-dom';
import { IconButton } from '@mui/material';
import CloseIcon from '@mui/icons-material/Close';
import { Notification as RaNotification, NotificationContext, useCloseNotification, useNotificationContext, useTranslate, type NotificationProps } from 'react-admin';

/**
 * react-admin shows one notification at a time and queues the rest: the one on screen closes as soon as
 * another is waiting, so the message for what the person just did shows at once instead of after the
 * last one's timeout (4 s for a success) or, for a persistent error, never.
 */
function GiveWay() {
  const close = useCloseNotification();
  const waiting = useNotificationContext().notifications.length;
  useEffect(() => {
    if (waiting) close();
  }, [waiting, close]);
  return null;
}

/**
 * An error is about the page it was raised on: it goes when the person moves to another page. A
 * screen that reports and redirects at once ("Tag '9' could not be found." back on the list) may
 * move just after the message appears; that first move, within a second, keeps the message.
 */
const REDIRECT_GRACE_MS = 1000;
function CloseOnNavigation() {
  const close = useCloseNotification();
  const { pathname } = useLocation();
  const shown = useRef({ pathname, at: Date.now(), moved: false });
  useEffect(() => {
    const was = shown.current;
    if (pathname === was.pathname) return;
    if (!was.moved && Date.now() - was.at < REDIRECT_GRACE_MS) shown.current = { pathname, at: was.at, moved: true };
    else close();
  }, [pathname, close]);
  return null;
}

function Dismiss() {
  const close = useCloseNotification();
  const translate = useTranslate();
  return (
    <>
      <GiveWay />
      <CloseOnNavigation />
      <IconButton size="small" color="inherit" aria-label={translate('fw.shell.dismiss')} onClick={close}>
        <CloseIcon fontSize="small" />
      </IconButton>
    </>
  );
}

/** Spec: error notifications persist (no timeout, no close on a click elsewhere) until dismissed, followed by another message or the page changes; others hide as usual. */
const persistent = {
  autoHideDuration: null,
  action: <Dismiss />,
  // MUI closes a snackbar on any click outside it; an error stays until its Dismiss button.
  ClickAwayListenerProps: { onClickAway: (event: { defaultMuiPrevented?: boolean }) => void (event.defaultMuiPrevented = true) },
};

export function Notification(props: NotificationProps) {
  const context = useNotificationContext();
  // react-admin raises errors from many places (lists, forms, auth): make them persistent where they are taken from the queue.
  const value = useMemo(
    () => ({
      ...context,
      takeNotification: () => {
        const next = context.takeNotification();
        if (!next) return next;
        if (next.type === 'error') return { ...next, notificationOptions: { ...next.notificationOptions, ...persistent } };
        // An undoable one keeps react-admin's Undo button (and its own timing).
        return next.notificationOptions?.undoable ? next : { ...next, notificationOptions: { ...next.notificationOptions, action: <GiveWay /> } };
      },
    }),
    [context],
  );
  return (
    <NotificationContext.Provider value={value}>
      <RaNotification {...props} />
    </NotificationContext.Provider>
  );
}
