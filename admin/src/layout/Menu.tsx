import { useMemo, useState } from 'react';
import { InputAdornment, ListSubheader, TextField } from '@mui/material';
import SearchIcon from '@mui/icons-material/Search';
import { Menu as RaMenu, useResourceDefinitions, useSidebarState } from 'react-admin';
import { GROUP_ORDER, groupOf } from './groups.js';

/** Side menu: resources grouped as in the spec, with a box that filters the entries by name. */
export function Menu() {
  const resources = useResourceDefinitions();
  const [open] = useSidebarState();
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

  return (
    <RaMenu>
      <RaMenu.DashboardItem />
      {open ? (
        <TextField
          size="small"
          placeholder="Filter menu"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
          sx={{ mx: 1.5, my: 1 }}
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
        <div key={group} role="group" aria-label={group}>
          {open ? (
            <ListSubheader component="div" sx={{ lineHeight: '32px', bgcolor: 'transparent' }}>
              {group}
            </ListSubheader>
          ) : null}
          {items.map((item) => (
            <RaMenu.ResourceItem key={item.name} name={item.name} primaryText={item.label} />
          ))}
        </div>
      ))}
    </RaMenu>
  );
}
