import { Fragment, type ReactNode } from 'react';
import { Box, Checkbox, Link, Typography } from '@mui/material';

/**
 * The Markdown Firewatch writes (postmortems: headings, paragraphs, lists, task lists, **bold**,
 * `code`, [links](…)) as React elements: no HTML is injected, so nothing in the text can run.
 */
export function Markdown({ text }: { text: string }) {
  return <Box className="fw-markdown">{blocks(text).map((b, i) => block(b, i))}</Box>;
}

type Block = { kind: 'heading'; level: number; text: string } | { kind: 'list'; items: string[] } | { kind: 'para'; text: string };

export function blocks(text: string): Block[] {
  const out: Block[] = [];
  for (const raw of text.replace(/\r\n?/g, '\n').split(/\n{2,}/)) {
    const lines = raw.split('\n').filter((l) => l.trim());
    if (!lines.length) continue;
    const heading = /^(#{1,6})\s+(.*)$/.exec(lines[0]!);
    if (heading && lines.length === 1) out.push({ kind: 'heading', level: heading[1]!.length, text: heading[2]! });
    else if (lines.every((l) => /^\s*[-*]\s+/.test(l))) {
      const items = lines.map((l) => l.replace(/^\s*[-*]\s+/, ''));
      // Consecutive list paragraphs (the postmortem writes one item a paragraph) make one list.
      const last = out[out.length - 1];
      if (last?.kind === 'list') last.items.push(...items);
      else out.push({ kind: 'list', items });
    } else out.push({ kind: 'para', text: lines.join(' ') });
  }
  return out;
}

function block(b: Block, key: number): ReactNode {
  if (b.kind === 'heading') {
    const variant = (['h4', 'h5', 'h6', 'subtitle1', 'subtitle1', 'subtitle1'] as const)[b.level - 1]!;
    return (
      <Typography key={key} variant={variant} component={`h${Math.min(b.level + 1, 6)}` as 'h2'} sx={{ mt: 2, mb: 1 }}>
        {inline(b.text)}
      </Typography>
    );
  }
  if (b.kind === 'list')
    return (
      <Box key={key} component="ul" sx={{ pl: 3, my: 1 }}>
        {b.items.map((item, i) => {
          const task = /^\[([ xX])\]\s+(.*)$/.exec(item);
          return (
            <Typography key={i} component="li" variant="body2" sx={task ? { listStyle: 'none', ml: -3 } : undefined}>
              {task ? <Checkbox size="small" checked={task[1] !== ' '} disabled slotProps={{ input: { 'aria-label': task[2] } }} sx={{ p: 0.5 }} /> : null}
              {inline(task ? task[2]! : item)}
            </Typography>
          );
        })}
      </Box>
    );
  return (
    <Typography key={key} variant="body1" sx={{ my: 1 }}>
      {inline(b.text)}
    </Typography>
  );
}

/** **bold**, `code` and [text](http…) inside a line. */
function inline(text: string): ReactNode {
  const parts = text.split(/(\*\*[^*]+\*\*|`[^`]+`|\[[^\]]+\]\((?:https?:\/\/|\/)[^)\s]+\))/g);
  return parts.map((p, i) => {
    if (/^\*\*[^*]+\*\*$/.test(p)) return <strong key={i}>{p.slice(2, -2)}</strong>;
    if (/^`[^`]+`$/.test(p)) return <code key={i}>{p.slice(1, -1)}</code>;
    const link = /^\[([^\]]+)\]\(([^)]+)\)$/.exec(p);
    if (link)
      return (
        <Link key={i} href={link[2]} target="_blank" rel="noreferrer">
          {link[1]}
        </Link>
      );
    return <Fragment key={i}>{p}</Fragment>;
  });
}
