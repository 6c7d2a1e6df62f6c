import { Typography } from '@mui/material';
import type { ItemsPage } from '../core/dataProvider.js';
import { useRecordView } from '../core/queries.js';
import { utc } from '../engine/screens.js';
import { Section } from './parts.js';

interface Message {
  id: number;
  author_email: string;
  text: string;
  created_at: string;
}

/**
 * The incident's conversation: its messages, those written in its Slack channel included. Read again
 * whenever the record reloads, which a mirrored message causes through the live changes; hidden
 * when it cannot be read.
 */
export function ConversationPanel({ incidentId }: { incidentId: number }) {
  const { data, isError } = useRecordView<ItemsPage<Message>>('iaos', incidentId, 'conversation/messages', { globalErrors: false });
  const messages = isError ? null : data?.items;
  if (!messages) return null;
  return (
    <Section title="Conversation">
      {messages.length ? (
        messages.map((m) => (
          <Typography key={m.id} variant="body2" sx={{ mb: 1 }}>
            {utc(m.created_at)} {m.author_email}: {m.text}
          </Typography>
        ))
      ) : (
        <Typography variant="body2">No messages yet.</Typography>
      )}
    </Section>
  );
}
