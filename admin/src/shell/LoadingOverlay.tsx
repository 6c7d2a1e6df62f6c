import { Backdrop, CircularProgress, Typography } from '@mui/material';

/** Spec §2's loading overlay: covers the page while it cannot be used (switching organization, reloading into a new one). */
export function LoadingOverlay({ open, label }: { open: boolean; label: string }) {
  return (
    <Backdrop open={open} sx={{ zIndex: (t) => t.zIndex.modal + 1, color: '#fff', flexDirection: 'column', gap: 2 }} data-testid="loading-overlay">
      <CircularProgress color="inherit" aria-label={label} />
      <Typography role="status">{label}</Typography>
    </Backdrop>
  );
}
