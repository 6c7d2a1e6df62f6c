import { ThemeProvider, type Theme } from '@mui/material';
import { Layout as RaLayout, type LayoutProps } from 'react-admin';
import { AppBar } from './AppBar.js';
import { Menu } from './Menu.js';

/** Drawer 250 px wide, 80 px when minimized (spec §9). */
const withDrawer = (outer: Theme) => ({ ...outer, sidebar: { width: 250, closedWidth: 80 } }) as Theme;

export function AppLayout(props: LayoutProps) {
  return (
    <ThemeProvider theme={withDrawer}>
      <RaLayout {...props} appBar={AppBar} menu={Menu} />
    </ThemeProvider>
  );
}
