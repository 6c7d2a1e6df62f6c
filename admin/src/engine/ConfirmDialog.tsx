import { useState, type ReactNode } from 'react';
import { Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle } from '@mui/material';
import { useTranslate } from 'react-admin';

/** A yes/no question before anything that changes status or removes something. */
export function ConfirmDialog({
  title,
  body,
  confirm,
  onConfirm,
  onClose,
}: {
  title: string;
  body: ReactNode;
  confirm?: string;
  onConfirm: () => Promise<unknown> | void;
  onClose: () => void;
}) {
  const translate = useTranslate();
  const [busy, setBusy] = useState(false);
  return (
    <Dialog open onClose={onClose} aria-labelledby="confirm-title" aria-describedby="confirm-body">
      <DialogTitle id="confirm-title">{title}</DialogTitle>
      <DialogContent>
        <DialogContentText id="confirm-body" component="div">
          {body}
        </DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{translate('fw.room.cancel')}</Button>
        <Button
          variant="contained"
          disabled={busy}
          onClick={async () => {
            setBusy(true);
            try {
              await onConfirm();
            } finally {
              setBusy(false);
              onClose();
            }
          }}
        >
          {confirm ?? translate('fw.room.confirm')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
