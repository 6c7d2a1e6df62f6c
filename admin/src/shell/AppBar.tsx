import { useEffect, useState } from 'react';
import {
  Box,
  Button,
  Chip,
  Dialog,
  IconButton,
  Tooltip,
  DialogActions,
  DialogContent,
  DialogTitle,
  ListItemIcon,
  ListItemText,
  MenuItem,
  Typography,
} from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import CheckIcon from '@mui/icons-material/Check';
import FullscreenIcon from '@mui/icons-material/Fullscreen';
import FullscreenExitIcon from '@mui/icons-material/FullscreenExit';
import KeyIcon from '@mui/icons-material/Key';
import SettingsIcon from '@mui/icons-material/Settings';
import { useNavigate } from 'react-router-dom';
import {
  AppBar as RaAppBar,
  Form,
  LoadingIndicator,
  Logout,
  PasswordInput,
  SaveButton,
  TitlePortal,
  ToggleThemeButton,
  UserMenu,
  required,
  useGetIdentity,
  useNotify,
  useTranslate,
  useUpdate,
  useUserMenu,
} from 'react-admin';
import { organization, switchOrganization } from '../core/org.js';
import { trialDaysLeft, useOrganizations, type Organization } from './useOrganization.js';
import { SearchBox } from '../search/SearchBox.js';
import { UpgradeAction } from '../billing/UpgradeAction.js';
import { OrganizationDialog } from './OrganizationDialog.js';
import { SiteLinks } from '../site/SiteLinks.js';
import { LoadingOverlay } from './LoadingOverlay.js';

/** Banner text (or the name) of the current organization, and the trial countdown on the free plan. */
function OrganizationBanner({ org }: { org?: Organization }) {
  if (!org) return null;
  const days = trialDaysLeft(org);
  const text = org.banner_enabled && org.banner_text ? org.banner_text : org.name;
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mr: 1 }} data-testid="organization-banner">
      <Chip label={text} size="small" sx={{ bgcolor: org.banner_color, color: '#fff', fontWeight: 600 }} />
      {days !== null ? (
        <Typography variant="body2" component="span">
          {days > 0 ? `Trial: ${days} day${days === 1 ? '' : 's'} left` : 'Trial expired'}
        </Typography>
      ) : null}
    </Box>
  );
}

function OrganizationItems({ organizations, onNew }: { organizations: Organization[]; onNew: () => void }) {
  const { onClose } = useUserMenu() ?? { onClose: () => undefined };
  const [switching, setSwitching] = useState<string | null>(null);
  return (
    <>
      <LoadingOverlay open={!!switching} label={`Opening ${switching ?? ''}…`} />
      <Typography variant="overline" sx={{ px: 2, display: 'block' }}>
        Organizations
      </Typography>
      {organizations.map((o) => (
        <MenuItem
          key={o.id}
          onClick={() => (o.slug === organization ? onClose() : (setSwitching(o.name), switchOrganization(o.slug)))}
          selected={o.slug === organization}
        >
          <ListItemIcon>{o.slug === organization ? <CheckIcon fontSize="small" /> : null}</ListItemIcon>
          <ListItemText primary={o.name} secondary={o.slug} />
        </MenuItem>
      ))}
      <MenuItem
        onClick={() => {
          onClose();
          onNew();
        }}
      >
        <ListItemIcon>
          <AddIcon fontSize="small" />
        </ListItemIcon>
        <ListItemText primary="New organization" />
      </MenuItem>
    </>
  );
}

/** Account menu: the organization's settings page (edit it, its contact menu and product links). */
function SettingsItem() {
  const { onClose } = useUserMenu() ?? { onClose: () => undefined };
  const navigate = useNavigate();
  return (
    <MenuItem
      onClick={() => {
        onClose();
        navigate(`/${organization}/admin/settings`);
      }}
    >
      <ListItemIcon>
        <SettingsIcon fontSize="small" />
      </ListItemIcon>
      <ListItemText primary="Organization settings" />
    </MenuItem>
  );
}

function PasswordItem({ onOpen }: { onOpen: () => void }) {
  const { onClose } = useUserMenu() ?? { onClose: () => undefined };
  return (
    <MenuItem
      onClick={() => {
        onClose();
        onOpen();
      }}
    >
      <ListItemIcon>
        <KeyIcon fontSize="small" />
      </ListItemIcon>
      <ListItemText primary="Change password" />
    </MenuItem>
  );
}

function PasswordDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { identity } = useGetIdentity();
  const [update] = useUpdate();
  const notify = useNotify();
  const submit = (values: Record<string, unknown>) =>
    update(
      'users',
      // An empty current password is left out: someone who signs in by e-mail code sets their first one.
      {
        id: identity!.id,
        data: { password: values.password, ...(values.current_password ? { current_password: values.current_password } : {}) },
        previousData: {},
      },
      { returnPromise: true, mutationMode: 'pessimistic' },
    ).then(
      () => {
        notify('Your password was changed.', { type: 'success' });
        onClose();
      },
      (error: { body?: { errors?: Record<string, string> } }) => error.body?.errors,
    );
  return (
    <Dialog open={open} onClose={onClose} aria-labelledby="password-title" fullWidth maxWidth="xs">
      <Form onSubmit={submit} noValidate>
        <DialogTitle id="password-title">Change password</DialogTitle>
        <DialogContent>
          <PasswordInput
            source="current_password"
            label="Current password"
            helperText="Leave it empty if you have only signed in with e-mail codes."
            fullWidth
            autoComplete="current-password"
          />
          <PasswordInput source="password" label="New password" validate={required()} fullWidth autoComplete="new-password" />
          <PasswordInput
            source="confirm_password"
            label="New password again"
            validate={[required(), (value: unknown, all: Record<string, unknown>) => (value === all.password ? undefined : 'The two new passwords differ.')]}
            fullWidth
            autoComplete="new-password"
          />
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose}>Cancel</Button>
          <SaveButton label="Change" alwaysEnable />
        </DialogActions>
      </Form>
    </Dialog>
  );
}

/** Full screen on and off for the whole page (the browser's own Esc also leaves it). */
function FullScreenButton() {
  const translate = useTranslate();
  const [full, setFull] = useState(() => !!document.fullscreenElement);
  useEffect(() => {
    const sync = () => setFull(!!document.fullscreenElement);
    document.addEventListener('fullscreenchange', sync);
    return () => document.removeEventListener('fullscreenchange', sync);
  }, []);
  const label = translate(full ? 'fw.shell.fullscreen_exit' : 'fw.shell.fullscreen_enter');
  const toggle = () => void (full ? document.exitFullscreen() : document.documentElement.requestFullscreen()).catch(() => undefined);
  return (
    <Tooltip title={label}>
      <IconButton color="inherit" aria-label={label} onClick={toggle}>
        {full ? <FullscreenExitIcon /> : <FullscreenIcon />}
      </IconButton>
    </Tooltip>
  );
}

export function AppBar() {
  const { organizations, current } = useOrganizations();
  const { identity } = useGetIdentity();
  const [dialog, setDialog] = useState<'organization' | 'password' | null>(null);
  return (
    <>
      <RaAppBar
        toolbar={
          <>
            <SearchBox />
            <OrganizationBanner org={current} />
            <UpgradeAction plan={current?.plan} />
            <SiteLinks />
            <ToggleThemeButton />
            <FullScreenButton />
            <LoadingIndicator />
          </>
        }
        userMenu={
          <UserMenu>
            <OrganizationItems organizations={organizations} onNew={() => setDialog('organization')} />
            <SettingsItem />
            {typeof identity?.id === 'number' ? <PasswordItem onOpen={() => setDialog('password')} /> : null}
            <Logout />
          </UserMenu>
        }
      >
        {/* The page title is the one h1 of each screen. */}
        <TitlePortal {...({ component: 'h1' } as object)} />
      </RaAppBar>
      <OrganizationDialog open={dialog === 'organization'} onClose={() => setDialog(null)} />
      <PasswordDialog open={dialog === 'password'} onClose={() => setDialog(null)} />
    </>
  );
}
