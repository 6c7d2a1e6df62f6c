import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Config } from '../core/config.js';
import type { Db, Executor } from '../core/db/client.js';
import { chatMessages, chats, messageFeedback, type MessageSource } from './tables.js';
import { projects } from '../core/db/projects.js';
import { notVisitorsProject } from '../projects/resources.js';
import type { Actor } from '../core/context.js';
import { withTenant } from '../core/db/tenant.js';
import { httpError, notFound } from '../core/errors.js';
import { answer, toSources, type AnswerResult } from './answer.js';
import { messagesToday } from './limits.js';
import { limitsFor } from '../billing/limits.js';
import { modelFor, type ChatMessage } from './llm.js';
import { retrieve, type Access } from './retrieve.js';
import { NUL_MESSAGE } from '../core/input.js';

/** A chat's title: its first question, cut after a whole word (with an ellipsis) when longer than 80 characters. */
export function chatTitle(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  // One very long word (a URL) is cut where it must be.
  return `${(space >= max / 4 ? cut.slice(0, space) : cut).replace(/[\s,.;:!?-]+$/, '')}…`;
}

/** Who is chatting: a member, or an anonymous visitor's session. */
/** Who asks: a member, an API key or an anonymous visitor. */
export type Chatter = Pick<Actor, 'orgId' | 'userId' | 'role' | 'sessionId'>;

export const accessOf = (c: Chatter): Access =>
  c.sessionId !== null
    ? { kind: 'anonymous', sessionId: c.sessionId }
    : c.userId !== null
      ? { kind: 'user', userId: c.userId, role: c.role ?? 'Member' }
      : { kind: 'apikey' };

/** Condition: the chat belongs to this chatter. */
const ownChat = (c: Chatter) =>
  c.sessionId !== null ? eq(chats.anonymous_session_id, c.sessionId) : c.userId !== null ? eq(chats.user_id, c.userId) : sql`false`;

export interface ChatEvents {
  sources(data: { chat_id: string; sources: MessageSource[] }): void;
  token(data: { chat_id: string; text: string }): void;
  reset(data: { chat_id: string; notice: string }): void;
}

export interface ChatInput {
  project_id?: number | null;
  chat_id?: string | null;
  text: string;
}

export const THANKS = 'Thank you for your feedback!';

/**
 * One question: checks the daily limit, stores it, retrieves passages the chatter may see, streams
 * the answer through `events`, and stores the answer with its sources.
 */
export async function ask(
  db: Db,
  config: Config,
  who: Chatter,
  input: ChatInput,
  events: ChatEvents,
): Promise<AnswerResult & { chat_id: string; message_id: number }> {
  if (input.text.includes('\u0000')) throw httpError(422, NUL_MESSAGE, 'string_nul', ['data', 'text']);
  const scope = { orgId: who.orgId, userId: who.userId };
  const prepared = await withTenant(db, scope, async (tx) => {
    const limits = await limitsFor(tx, config, who.orgId, who.sessionId !== null);
    const used = await messagesToday(tx, who.orgId, { userId: who.userId, sessionId: who.sessionId });
    if (used >= limits.messages_per_day) {
      throw httpError(429, `Message limit reached: your plan allows ${limits.messages_per_day} messages per day.`, 'limit_reached', ['text']);
    }
    let chat: { id: string; project_id: number | null } | undefined;
    if (input.chat_id) {
      [chat] = await tx
        .select({ id: chats.id, project_id: chats.project_id })
        .from(chats)
        .where(and(eq(chats.organization_id, who.orgId), eq(chats.id, input.chat_id), ownChat(who)));
      if (!chat) throw notFound('Chat', input.chat_id);
    } else {
      if (input.project_id != null) {
        const [p] = await tx
          .select({ id: projects.id })
          .from(projects)
          .where(
            and(
              eq(projects.organization_id, who.orgId),
              eq(projects.id, input.project_id),
              // A visitor chats in their own projects or public ones; members never in a visitor's.
              who.sessionId === null ? notVisitorsProject(who.orgId) : undefined,
            ),
          );
        if (!p) throw httpError(404, `Project '${input.project_id}' could not be found.`, 'not_found', ['project_id']);
      }
      [chat] = await tx
        .insert(chats)
        .values({
          organization_id: who.orgId,
          project_id: input.project_id ?? null,
          title: chatTitle(input.text),
          user_id: who.userId,
          anonymous_session_id: who.sessionId,
        })
        .returning({ id: chats.id, project_id: chats.project_id });
    }
    const history = await tx
      .select({ role: chatMessages.role, text: chatMessages.text })
      .from(chatMessages)
      .where(and(eq(chatMessages.organization_id, who.orgId), eq(chatMessages.chat_id, chat!.id)))
      .orderBy(desc(chatMessages.id))
      .limit(6);
    await tx
      .insert(chatMessages)
      .values({ organization_id: who.orgId, chat_id: chat!.id, role: 'user', text: input.text, user_id: who.userId, anonymous_session_id: who.sessionId });
    const [passages, model] = await Promise.all([
      retrieve(tx, { orgId: who.orgId, projectId: chat!.project_id, query: input.text, access: accessOf(who), limit: 6 }),
      modelFor(tx, db, config, who.orgId, chat!.project_id),
    ]);
    return { chat: chat!, passages, model, history: history.reverse().map((h) => ({ role: h.role, content: h.text }) as ChatMessage) };
  });
  const chat_id = prepared.chat.id;
  events.sources({ chat_id, sources: toSources(prepared.passages) });
  const result = await answer(config, input.text, prepared.passages, {
    history: prepared.history,
    model: prepared.model,
    onToken: (text) => events.token({ chat_id, text }),
    onReset: (notice) => events.reset({ chat_id, notice }),
  });
  const message_id = await withTenant(db, scope, async (tx) => {
    const [m] = await tx
      .insert(chatMessages)
      .values({
        organization_id: who.orgId,
        chat_id,
        role: 'assistant',
        text: result.answer,
        sources: result.sources,
        answered_by: result.answered_by,
        notice: result.notice,
      })
      .returning({ id: chatMessages.id });
    await tx
      .update(chats)
      .set({ updated_at: new Date() })
      .where(and(eq(chats.organization_id, who.orgId), eq(chats.id, chat_id)));
    return m!.id;
  });
  return { ...result, chat_id, message_id };
}

export interface StoredChat {
  id: string;
  project_id: number | null;
  title: string;
  shared: boolean;
  created_at: Date;
  updated_at: Date;
  messages: {
    id: number;
    role: string;
    text: string;
    sources: MessageSource[];
    answered_by: string | null;
    notice: string | null;
    created_at: Date;
    feedback: string | null;
  }[];
}

/** A message as a chat answers it (loadChat adds the caller's like or dislike). */
export const messageColumns = {
  id: chatMessages.id,
  role: chatMessages.role,
  text: chatMessages.text,
  sources: chatMessages.sources,
  answered_by: chatMessages.answered_by,
  notice: chatMessages.notice,
  created_at: chatMessages.created_at,
};

/** A chat with its messages: the owner's, or any shared one when `shared` is asked for. */
export async function loadChat(tx: Executor, who: Chatter | null, orgId: number, chatId: string, opts: { shared?: boolean } = {}): Promise<StoredChat> {
  if (!/^[0-9a-f-]{36}$/i.test(chatId)) throw notFound('Chat', chatId);
  const visible = opts.shared ? sql`${chats.shared_at} is not null` : who ? ownChat(who) : sql`false`;
  const [chat] = await tx
    .select()
    .from(chats)
    .where(and(eq(chats.organization_id, orgId), eq(chats.id, chatId), visible));
  if (!chat) throw notFound('Chat', chatId);
  const mine = who?.userId != null ? sql`f.user_id = ${who.userId}` : who?.sessionId != null ? sql`f.anonymous_session_id = ${who.sessionId}` : sql`false`;
  const messages = await tx
    .select({
      ...messageColumns,
      feedback: sql<
        string | null
      >`(select f.value from message_feedback f where f.organization_id = ${chatMessages.organization_id} and f.message_id = ${chatMessages.id} and ${mine} limit 1)`,
    })
    .from(chatMessages)
    .where(and(eq(chatMessages.organization_id, orgId), eq(chatMessages.chat_id, chatId)))
    .orderBy(asc(chatMessages.id));
  return {
    id: chat.id,
    project_id: chat.project_id,
    title: chat.title,
    shared: chat.shared_at !== null,
    created_at: chat.created_at,
    updated_at: chat.updated_at,
    messages,
  };
}

/** Like or dislike an answer in one's own chat; a second vote replaces the first. The caller queues LIKED_JOB with `feedback_id` once this commits. */
export async function giveFeedback(tx: Executor, who: Chatter, messageId: number, value: 'like' | 'dislike') {
  const [m] = await tx
    .select({ id: chatMessages.id, role: chatMessages.role, project_id: chats.project_id })
    .from(chatMessages)
    .innerJoin(chats, and(eq(chats.organization_id, chatMessages.organization_id), eq(chats.id, chatMessages.chat_id)))
    .where(and(eq(chatMessages.organization_id, who.orgId), eq(chatMessages.id, messageId), ownChat(who)));
  if (!m || m.role !== 'assistant') throw notFound('Message', messageId);
  const [row] = await tx
    .insert(messageFeedback)
    .values({
      organization_id: who.orgId,
      message_id: messageId,
      project_id: m.project_id,
      user_id: who.userId,
      anonymous_session_id: who.sessionId,
      value,
      status: 'processing',
    })
    .onConflictDoUpdate({
      target: [messageFeedback.organization_id, messageFeedback.message_id, messageFeedback.user_id, messageFeedback.anonymous_session_id],
      set: { value, status: 'processing', error: null, updated_at: new Date() },
    })
    .returning({ id: messageFeedback.id });
  return { message_id: messageId, value, message: THANKS, feedback_id: row!.id };
}

/**
 * Liked answers of a project not yet curated: waiting in processing, or failed (with the reason, so
 * the user learns why), each with the question that led to it. Processed ones leave the list.
 */
export async function likedInProcessing(tx: Executor, orgId: number, projectId: number) {
  return tx
    .select({
      id: messageFeedback.id,
      message_id: chatMessages.id,
      chat_id: chatMessages.chat_id,
      answer: chatMessages.text,
      sources: chatMessages.sources,
      question: sql<
        string | null
      >`(select q.text from chat_messages q where q.organization_id = ${chatMessages.organization_id} and q.chat_id = ${chatMessages.chat_id} and q.id < ${chatMessages.id} and q.role = 'user' order by q.id desc limit 1)`,
      liked_at: messageFeedback.updated_at,
      status: messageFeedback.status,
      error: messageFeedback.error,
    })
    .from(messageFeedback)
    .innerJoin(chatMessages, and(eq(chatMessages.organization_id, messageFeedback.organization_id), eq(chatMessages.id, messageFeedback.message_id)))
    .where(
      and(
        eq(messageFeedback.organization_id, orgId),
        eq(messageFeedback.project_id, projectId),
        eq(messageFeedback.value, 'like'),
        inArray(messageFeedback.status, ['processing', 'failed']),
      ),
    )
    .orderBy(desc(messageFeedback.updated_at))
    .limit(200);
}
