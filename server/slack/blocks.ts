import type { Card } from './capabilities.js';

/** Slack's mrkdwn treats these three as markup. */
export const escapeText = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** Slack's channel names: lowercase letters, digits, - and _, at most 80. */
export const channelName = (text: string) =>
  text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 80) || 'incident';

/** A card in Block Kit: a header, its line, its fields (ten at most per section), its buttons. */
export function cardBlocks(card: Card): Record<string, unknown>[] {
  const blocks: Record<string, unknown>[] = [{ type: 'header', text: { type: 'plain_text', text: card.title.slice(0, 150) } }];
  if (card.text) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: escapeText(card.text).slice(0, 3000) } });
  for (let i = 0; i < card.fields.length; i += 10)
    blocks.push({
      type: 'section',
      fields: card.fields.slice(i, i + 10).map((f) => ({ type: 'mrkdwn', text: `*${escapeText(f.label)}*\n${escapeText(f.value || '—')}`.slice(0, 2000) })),
    });
  if (card.actions?.length)
    blocks.push({
      type: 'actions',
      elements: card.actions.slice(0, 25).map((a) => ({
        type: 'button',
        text: { type: 'plain_text', text: a.label },
        action_id: a.action,
        ...(a.value ? { value: a.value } : {}),
        ...(a.url ? { url: a.url } : {}),
        ...(a.style ? { style: a.style } : {}),
      })),
    });
  return blocks;
}
