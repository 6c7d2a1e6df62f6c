import { z } from 'zod';

/** Field builders shared by every definition, so messages read the same everywhere. */
const REQUIRED = 'This field is required';

export const requiredText = (max = 255) =>
  z
    .string({ error: (iss) => (iss.input === undefined || iss.input === null ? REQUIRED : 'Must be text') })
    .trim()
    .min(1, REQUIRED)
    .max(max);
export const text = (max = 10_000) => z.string().max(max).nullish();
export const color = () => z.string().regex(/^#[0-9a-fA-F]{6}$/, 'Must be a colour like #1565C0');
export const flag = () => z.boolean();
export const count = () => z.number().int().min(0);
export const ref = () => z.number().int().positive();
export const requiredRef = () =>
  z
    .number({ error: (iss) => (iss.input === undefined ? REQUIRED : 'Must be an id') })
    .int()
    .positive();
export const email = () => z.string().trim().toLowerCase().pipe(z.email('Must be an e-mail address'));
export const url = () => z.url('Must be a URL').nullish();

/** A channel as a conversation_target names it: `#name` (Slack's names: lowercase letters, digits, - and _) or the channel's id (C…, G…). */
export const CHANNEL_PATTERN = '#[a-z0-9_-]{1,80}|[CG][A-Z0-9]{6,}';
export const CHANNEL = new RegExp(`^(?:${CHANNEL_PATTERN})$`);
/** A conversation_target: a channel, or empty for none (a name Slack would refuse is refused here, not dropped later). */
export const conversationTarget = () =>
  z
    .string()
    .trim()
    .pipe(z.union([z.literal(''), z.string().regex(CHANNEL, 'Must name a channel: #name (lowercase letters, digits, - and _) or its id (C…, G…)')]))
    .nullish();
