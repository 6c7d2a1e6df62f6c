import { useEffect, useMemo, useRef } from 'react';
import { useLocation } from 'react-router-dom';
import { IconButton } from '@mui/material';
import CloseIcon from '@mui/icons-material/Close';
import {
  Notification as RaNotification,
  NotificationContext,
  useCloseNotification,
  useNotificationContext,
  useTranslate,
  type NotificationProps,
} from 'react-admin';

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
 * An error is about the page it was raised on: it goes when the person moves to another page. Moving
 * up to the page's parent keeps it: that is an edit sheet closing on its error ("Tag '9' could not be
 * found." back on the list of tags), and the message says why.
 */
function CloseOnNavigation() {
  const close = useCloseNotification();
  const { pathname } = useLocation();
  const shownOn = useRef(pathname);
  useEffect(() => {
    const was = shownOn.current;
    if (pathname === was) return;
    if (was.startsWith(`${pathname.replace(/\/+$/, '')}/`)) shownOn.current = pathname;
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
