import { ThemeProvider, type Theme } from '@mui/material';
import { Layout as RaLayout, type LayoutProps } from 'react-admin';
import { AppBar } from './AppBar.js';
import { Menu } from './Menu.js';
import { SessionWatch } from '../core/SessionWatch.js';
import { showTemporaryMessage } from '../core/session.js';
import { loadSite } from '../site/site.js';
import { useEffect } from 'react';

/** Drawer 250 px wide, 80 px when minimized (spec §9). */
const withDrawer = (outer: Theme) => ({ ...outer, sidebar: { width: 250, closedWidth: 80 } }) as Theme;

/** The organization's temporary message, once a page load (it hides after 30 s). */
function OrganizationMessage() {
  useEffect(() => {
    void loadSite().then(
      (site) => site.settings.temporary_message && showTemporaryMessage({ text: site.settings.temporary_message, severity: 'info' }),
      () => undefined,
    );
  }, []);
  return null;
}

export function AppLayout(props: LayoutProps) {
  return (
    <ThemeProvider theme={withDrawer}>
      <RaLayout {...props} appBar={AppBar} menu={Menu} />
      <SessionWatch signedIn />
      <OrganizationMessage />
    </ThemeProvider>
  );
}
