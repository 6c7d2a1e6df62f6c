import { useEffect, useMemo } from 'react';
import { IconButton } from '@mui/material';
import CloseIcon from '@mui/icons-material/Close';
import { Notification as RaNotification, NotificationContext, useCloseNotification, useNotificationContext, useTranslate, type NotificationProps } from 'react-admin';

function Dismiss() {
  const close = useCloseNotification();
  const translate = useTranslate();
  // react-admin shows one notification at a time: a persistent error gives way to the next message.
  const waiting = useNotificationContext().notifications.length;
  useEffect(() => {
    if (waiting) close();
  }, [waiting, close]);
  return (
    <IconButton size="small" color="inherit" aria-label={translate('fw.shell.dismiss')} onClick={close}>
      <CloseIcon fontSize="small" />
    </IconButton>
  );
}

/** Spec: error notifications persist (no timeout, no close on a click elsewhere) until dismissed or followed by another message; others hide as usual. */
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
        return next?.type === 'error' ? { ...next, notificationOptions: { ...next.notificationOptions, ...persistent } } : next;
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
