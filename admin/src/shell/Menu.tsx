import { Fragment, useMemo, useState } from 'react';
import { Box, InputAdornment, TextField, Typography, type TooltipProps } from '@mui/material';
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

/**
 * Side drawer (spec §2 Shell): the menu pane, most used first, each entry with its own icon; then
 * the settings pane, its sub-menus grouped, with a filter box. Minimized (the default), settings
 * entries show their group's icon, groups separated by a line.
 */
export function Menu() {
  const resources = useResourceDefinitions();
  const [open] = useSidebarState();
  const translate = useTranslate();
  const [filter, setFilter] = useState('');
  const { menu, settings } = useMemo(() => {
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
    const rest = others(available).sort((a, b) => labelOf.get(a)!.localeCompare(labelOf.get(b)!));
    const needle = filter.trim().toLowerCase();
    return {
      menu: arrange(MENU_GROUPS, available).map(withLabels),
      settings: [...arrange(SETTINGS_GROUPS, available), ...(rest.length ? [{ group: OTHER_GROUP, names: rest }] : [])]
        .map(withLabels)
        .map(({ group, items }) => ({ group, items: items.filter((i) => matches(i.label, needle)) }))
        .filter((g) => g.items.length),
    };
  }, [resources, filter]);

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
      sx={{ pb: 2, ...(open ? {} : { '& .RaMenuItemLink-root .MuiTypography-root': visuallyHidden }) }}
    >
      {menu.map((g, i) => (
        <Box key={g.group.key} sx={i ? { borderTop: 1, borderColor: 'divider' } : undefined}>
          {groupList(g, 'h2', 'menu')}
        </Box>
      ))}
      <Box component="section" aria-label={translate('fw.shell.settings')} data-testid="settings-pane" sx={{ mt: 1, borderTop: 1, borderColor: 'divider' }}>
        {open ? (
          <>
            <Typography variant="subtitle2" component="h2" sx={{ px: 2, pt: 1.5 }}>
              {translate('fw.shell.settings')}
            </Typography>
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
          </>
        ) : (
          // Minimized: each settings group in its own icon (the entry's name is its tooltip), a line between groups.
          settings.map((g, i) => (
            <Box key={g.group.key} sx={i ? { borderTop: 1, borderColor: 'divider' } : undefined}>
              {groupList(g, 'h3', 'settings')}
            </Box>
          ))
        )}
      </Box>
    </Box>
  );
}
