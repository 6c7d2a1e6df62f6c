import { Fragment, useMemo, useState } from 'react';
import { Box, InputAdornment, ListItemButton, ListItemIcon, ListItemText, TextField, Tooltip, Typography, type TooltipProps } from '@mui/material';
import SettingsIcon from '@mui/icons-material/Settings';
import ExpandLessIcon from '@mui/icons-material/ExpandLess';
import ExpandMoreIcon from '@mui/icons-material/ExpandMore';
import { useLocation } from 'react-router-dom';
import SearchIcon from '@mui/icons-material/Search';
import { Menu as RaMenu, useResourceDefinitions, useSidebarState, useTranslate } from 'react-admin';
import { organization } from '../core/org.js';
import { arrange, MENU_GROUPS, MENU_LABELS, OTHER_GROUP, others, PAGES, SETTINGS_GROUPS, type MenuGroup } from './groups.js';
import { iconFor } from './menuIcons.js';

/** The minimized drawer's tooltips describe their entry instead of labelling it (the entry keeps its own name). */
const tooltip = { describeChild: true } as TooltipProps;
const visuallyHidden = { position: 'absolute', width: 1, height: 1, overflow: 'hidden', clip: 'rect(0 0 0 0)', whiteSpace: 'nowrap' } as const;

/** The filter box's needle, lower-cased and trimmed. */
const matches = (label: string, needle: string) => !needle || label.toLowerCase().includes(needle);

interface Entry {
  name: string;
  label: string;
}

const SETTINGS_OPEN_KEY = 'fw.settingsOpen';

/** The drawer's groups and the settings pane's (only the entries matching `filter`), from the resources the role may list. */
function useMenuEntries(filter: string) {
  const resources = useResourceDefinitions();
  return useMemo(() => {
    const listed = Object.values(resources).filter((def) => def.hasList);
    const labelOf = new Map<string, string>([
      ...listed.map((def) => [def.name, MENU_LABELS[def.name] ?? String(def.options?.menuLabel ?? def.name)] as const),
      ...Object.entries(PAGES),
    ]);
    const available = new Set(listed.map((def) => def.name));
    const withLabels = ({ group, names }: { group: MenuGroup; names: string[] }) => ({
      group,
      items: names.map((name) => ({ name, label: labelOf.get(name)! })),
    });
    const menu = arrange(MENU_GROUPS, available);
    const taken = new Set(menu.flatMap((g) => g.names));
    const rest = others(available)
      .filter((n) => !taken.has(n))
      .sort((a, b) => labelOf.get(a)!.localeCompare(labelOf.get(b)!));
    const needle = filter.trim().toLowerCase();
    const allSettings = [...arrange(SETTINGS_GROUPS, available, taken), ...(rest.length ? [{ group: OTHER_GROUP, names: rest }] : [])];
    return {
      menu: menu.map(withLabels),
      settingsNames: allSettings.flatMap((g) => g.names),
      settings: allSettings
        .map(withLabels)
        .map(({ group, items }) => ({ group, items: items.filter((i) => matches(i.label, needle)) }))
        .filter((g) => g.items.length),
    };
  }, [resources, filter]);
}

/**
 * Side drawer (spec §2 Shell): a responder's work first, each entry with its own icon; then one
 * Settings entry that opens the settings pane: its filter box at the top (so matches show right under
 * it) and its groups. Minimized (the default), Settings opens the drawer with the pane open.
 */
export function Menu() {
  const [open, setOpen] = useSidebarState();
  const translate = useTranslate();
  const { pathname } = useLocation();
  const [filter, setFilter] = useState('');
  const { menu, settings, settingsNames } = useMenuEntries(filter);
  // Open where a settings screen is shown (so its entry is in view), else as the person left it; the
  // filter does not count (typing in it must not close the pane it sits in).
  const onSettingsPage = settingsNames.some((name) => pathname.includes(`/${organization}/${name.replace(/^\//, '')}`));
  const [expanded, setExpanded] = useState(() => localStorage.getItem(SETTINGS_OPEN_KEY) === 'true');
  const showSettings = open && (expanded || onSettingsPage);
  const toggleSettings = () => {
    const next = !open || !showSettings;
    if (!open) setOpen(true);
    setExpanded(next);
    localStorage.setItem(SETTINGS_OPEN_KEY, String(next));
  };

  const title = (group: MenuGroup) => translate(`fw.shell.groups.${group.key}`);
  const item = (entry: Entry, group: MenuGroup) =>
    entry.name.startsWith('/') ? (
      <RaMenu.Item
        key={entry.name}
        to={`/${organization}${entry.name}`}
        primaryText={entry.label}
        leftIcon={iconFor(entry.name, group)}
        tooltipProps={tooltip}
      />
    ) : (
      <RaMenu.ResourceItem key={entry.name} name={entry.name} primaryText={entry.label} leftIcon={iconFor(entry.name, group)} tooltipProps={tooltip} />
    );
  // One menu list per group: a role=menu list may only hold menu items, so the filter box and the
  // group headings sit between the lists.
  const groupList = ({ group, items }: { group: MenuGroup; items: Entry[] }, heading: 'h2' | 'h3', pane: string) => (
    <Fragment key={`${pane}-${group.key}`}>
      {open ? (
        <Typography
          variant="overline"
          component={heading}
          id={`${pane}-${group.key}`}
          sx={{ display: 'block', px: 2, pt: 1, color: 'text.secondary', lineHeight: '24px' }}
        >
          {title(group)}
        </Typography>
      ) : null}
      <RaMenu aria-label={title(group)} sx={{ mt: 0 }}>
        {items.map((entry) => item(entry, group))}
      </RaMenu>
    </Fragment>
  );

  return (
    // Minimized (80 px), entries show their icons only: the names stay in the page for screen readers, and in tooltips.
    <Box
      component="nav"
      aria-label="Main"
      data-testid="drawer"
      sx={{ pb: 2, ...(open ? {} : { '& .RaMenuItemLink-root .MuiTypography-root, & .fw-settings-label': visuallyHidden }) }}
    >
      {menu.map((g) => groupList(g, 'h2', 'menu'))}
      <Box sx={{ borderTop: 1, borderColor: 'divider' }}>
        <Tooltip title={open ? '' : translate('fw.shell.settings')} placement="right">
          <ListItemButton aria-expanded={showSettings} aria-controls="settings-pane" onClick={toggleSettings} sx={{ py: 0.75, px: 2 }}>
            <ListItemIcon sx={{ minWidth: 40 }}>
              <SettingsIcon />
            </ListItemIcon>
            <ListItemText primary={translate('fw.shell.settings')} slotProps={{ primary: { className: 'fw-settings-label' } }} />
            {open ? showSettings ? <ExpandLessIcon /> : <ExpandMoreIcon /> : null}
          </ListItemButton>
        </Tooltip>
      </Box>
      {showSettings ? (
        <Box component="section" id="settings-pane" aria-label={translate('fw.shell.settings')} data-testid="settings-pane">
          <TextField
            size="small"
            placeholder={translate('fw.shell.filter_menu')}
            value={filter}
            onChange={(e) => setFilter(e.target.value)}
            // Inside the 250 px drawer (its margins included).
            sx={{ mx: 1.5, my: 1, width: 'calc(100% - 24px)' }}
            slotProps={{
              htmlInput: { 'aria-label': translate('fw.shell.filter_menu') },
              input: {
                startAdornment: (
                  <InputAdornment position="start">
                    <SearchIcon fontSize="small" />
                  </InputAdornment>
                ),
              },
            }}
          />
          {settings.map((g) => groupList(g, 'h3', 'settings'))}
        </Box>
      ) : null}
    </Box>
  );
}
