import { Fragment, useMemo, useState } from 'react';
import { Box, InputAdornment, TextField, Typography, type TooltipProps } from '@mui/material';
import ChatIcon from '@mui/icons-material/Chat';
import DashboardIcon from '@mui/icons-material/Dashboard';
import SearchIcon from '@mui/icons-material/Search';
import { Menu as RaMenu, useResourceDefinitions, useSidebarState, useTranslate } from 'react-admin';
import { organization } from '../org.js';
import { GROUP_ORDER, groupOf } from './groups.js';

/** The minimized drawer's tooltips describe their entry instead of labelling it (the entry keeps its own name). */
const tooltip = { describeChild: true } as TooltipProps;
const visuallyHidden = { position: 'absolute', width: 1, height: 1, overflow: 'hidden', clip: 'rect(0 0 0 0)', whiteSpace: 'nowrap' } as const;

/** Side menu: resources grouped as in the spec, with a box that filters the entries by name. */
export function Menu() {
  const resources = useResourceDefinitions();
  const [open] = useSidebarState();
  const translate = useTranslate();
  const [filter, setFilter] = useState('');
  const groups = useMemo(() => {
    const needle = filter.trim().toLowerCase();
    const map = new Map<string, { name: string; label: string }[]>();
    for (const def of Object.values(resources)) {
      if (!def.hasList) continue;
      const label = String(def.options?.menuLabel ?? def.name);
      if (needle && !label.toLowerCase().includes(needle)) continue;
      const group = groupOf(def.name);
      map.set(group, [...(map.get(group) ?? []), { name: def.name, label }]);
    }
    return GROUP_ORDER.filter((g) => map.has(g)).map((g) => ({ group: g, items: map.get(g)!.sort((a, b) => a.label.localeCompare(b.label)) }));
  }, [resources, filter]);

  // One menu list per group: a role=menu list may only hold menu items, so the filter box and the
  // group headings sit between the lists.
  return (
    // Minimized (80 px), entries show their icons only: the names stay in the page for screen readers, and in tooltips.
    <Box component="nav" aria-label="Main" sx={{ pb: 2, ...(open ? {} : { '& .RaMenuItemLink-root .MuiTypography-root': visuallyHidden }) }}>
      <RaMenu>
        <RaMenu.Item to={`/${organization}/chat`} primaryText={translate('fw.shell.chat')} leftIcon={<ChatIcon />} tooltipProps={tooltip} />
        <RaMenu.Item to={`/${organization}/overview`} primaryText={translate('fw.shell.overview')} leftIcon={<DashboardIcon />} tooltipProps={tooltip} />
      </RaMenu>
      {open ? (
        <TextField
          size="small"
          placeholder="Filter menu"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
          // Inside the 250 px drawer (its margins included).
          sx={{ mx: 1.5, my: 1, width: 'calc(100% - 24px)' }}
          slotProps={{
            htmlInput: { 'aria-label': 'Filter menu' },
            input: {
              startAdornment: (
                <InputAdornment position="start">
                  <SearchIcon fontSize="small" />
                </InputAdornment>
              ),
            },
          }}
        />
      ) : null}
      {groups.map(({ group, items }) => (
        <Fragment key={group}>
          {open ? (
            <Typography variant="overline" component="h2" id={`menu-${group}`} sx={{ display: 'block', px: 2, pt: 1, color: 'text.secondary', lineHeight: '24px' }}>
              {group}
            </Typography>
          ) : null}
          <RaMenu aria-label={group} sx={{ mt: 0 }}>
            {items.map((item) => (
              <RaMenu.ResourceItem key={item.name} name={item.name} primaryText={item.label} tooltipProps={tooltip} />
            ))}
          </RaMenu>
        </Fragment>
      ))}
    </Box>
  );
}
