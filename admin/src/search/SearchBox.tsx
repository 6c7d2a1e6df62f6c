import { useRef, useState, type KeyboardEvent } from 'react';
import { Box, InputBase, List, ListItemButton, ListItemText, ListSubheader, Paper, Popper, Typography, alpha } from '@mui/material';
import SearchIcon from '@mui/icons-material/Search';
import { useBasename } from 'react-admin';
import { useNavigate } from 'react-router-dom';
import { Highlighted } from './Highlighted.js';
import { useSearch, type SearchResult } from './useSearch.js';

/** How many results the box shows; the rest are on search/results. */
const SHOWN = 8;

/** The results shown, in the order they come, each group under its type's label. */
function ResultGroups(props: { shown: SearchResult[]; label: (type: string) => string; active: number; onOpen: (r: SearchResult) => void }) {
  const { shown, label, active, onOpen: openResult } = props;
  const groups: { type: string; rows: { r: SearchResult; i: number }[] }[] = [];
  shown.forEach((r, i) => {
    if (groups.at(-1)?.type !== r.type) groups.push({ type: r.type, rows: [] });
    groups.at(-1)!.rows.push({ r, i });
  });
  return (
    <>
      {groups.map(({ type, rows }) => (
        <Box key={type} role="group" aria-labelledby={`global-search-group-${type}`}>
          <ListSubheader id={`global-search-group-${type}`} component="div" role="presentation" sx={{ lineHeight: '28px' }}>
            {label(type)}
          </ListSubheader>
          {rows.map(({ r, i }) => (
            <ListItemButton
              key={`${r.type}-${r.id}`}
              id={`global-search-${i}`}
              role="option"
              selected={i === active}
              aria-selected={i === active}
              onMouseDown={(e) => e.preventDefault()}
              onClick={() => openResult(r)}
            >
              <ListItemText primary={r.title} secondary={<Highlighted text={r.headline} />} secondaryTypographyProps={{ noWrap: true }} />
            </ListItemButton>
          ))}
        </Box>
      ))}
    </>
  );
}

/**
 * The toolbar's search box: results as you type, grouped by type; arrow keys move, Enter opens the
 * chosen one (or, with none chosen, every result on search/results), Escape closes.
 */
export function SearchBox() {
  const [q, setQ] = useState('');
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const anchor = useRef<HTMLDivElement>(null);
  const navigate = useNavigate();
  const basename = useBasename();
  const { answer } = useSearch(q);
  const shown = (answer?.results ?? []).slice(0, SHOWN);
  const visible = open && !!q.trim() && !!answer;

  const go = (path: string) => {
    setOpen(false);
    setActive(-1);
    navigate(`${basename}${path}`);
  };
  const openResult = (r: SearchResult) => go(r.link);
  const all = () => go(`/search/results?q=${encodeURIComponent(q.trim())}`);
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown') {
      e.preventDefault();
      setOpen(true);
      setActive((a) => Math.min(a + 1, shown.length)); // shown.length: the "all results" row
    } else if (e.key === 'ArrowUp') {
      e.preventDefault();
      setActive((a) => Math.max(a - 1, -1));
    } else if (e.key === 'Enter' && q.trim()) {
      e.preventDefault();
      if (active >= 0 && active < shown.length) openResult(shown[active]!);
      else all();
    } else if (e.key === 'Escape') {
      setOpen(false);
      setActive(-1);
    }
  };
  const label = (type: string) => answer?.groups.find((g) => g.type === type)?.label ?? type;
  return (
    <Box
      ref={anchor}
      sx={{ position: 'relative', mx: 1, borderRadius: 1, bgcolor: (t) => alpha(t.palette.common.white, 0.15), display: 'flex', alignItems: 'center', px: 1 }}
    >
      <SearchIcon fontSize="small" />
      <InputBase
        placeholder="Search…"
        value={q}
        onChange={(e) => {
          setQ(e.target.value);
          setOpen(true);
          setActive(-1);
        }}
        onFocus={() => setOpen(true)}
        onBlur={() => setTimeout(() => setOpen(false), 150)}
        onKeyDown={onKey}
        sx={{ color: 'inherit', ml: 1, width: { xs: 120, md: 240 } }}
        inputProps={{
          'aria-label': 'Search',
          role: 'combobox',
          'aria-expanded': visible,
          'aria-controls': 'global-search-results',
          'aria-activedescendant': active >= 0 ? `global-search-${active}` : undefined,
        }}
      />
      <Popper open={visible} anchorEl={anchor.current} placement="bottom-start" sx={{ zIndex: 1300 }}>
        <Paper sx={{ width: 420, maxHeight: 480, overflow: 'auto' }} elevation={8}>
          {!shown.length ? <Typography sx={{ p: 2 }}>No results for “{q.trim()}”.</Typography> : null}
          <List dense id="global-search-results" role="listbox" aria-label="Search results">
            <ResultGroups shown={shown} label={label} active={active} onOpen={openResult} />
            {answer?.total ? (
              <ListItemButton
                id={`global-search-${shown.length}`}
                role="option"
                selected={active === shown.length}
                aria-selected={active === shown.length}
                onMouseDown={(e) => e.preventDefault()}
                onClick={all}
              >
                <ListItemText primary={`All ${answer.total}${answer.total_capped ? '+' : ''} results`} />
              </ListItemButton>
            ) : null}
          </List>
        </Paper>
      </Popper>
    </Box>
  );
}
