import { and, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../core/db/client.js';
import { rowsOf } from '../core/db/client.js';
import type { RequestContext } from '../core/context.js';
import { cases } from '../cases/tables.js';
import { incidents } from '../incidents/tables.js';
import { caseScope } from '../cases/scope.js';
import { incidentScope } from '../incidents/scope.js';
import type { MessageSource } from './tables.js';
import { accessCondition } from './retrieve.js';
import { accessOf, type Chatter } from './chat.js';

/** How a shared chat names what it leaves out. */
export const WITHHELD = 'a source you need to sign in to see';
/** Stands in an answer for the sentences that quote a withheld source. */
export const WITHHELD_NOTE = `[Withheld: this part quotes ${WITHHELD}.]`;
const WITHHELD_TITLE = 'A source you need to sign in to see';

const keyOf = (s: Pick<MessageSource, 'object_type' | 'object_id'>) => `${s.object_type}:${s.object_id}`;
const idsOf = (sources: MessageSource[], type: string) => [...new Set(sources.filter((s) => s.object_type === type).map((s) => Number(s.object_id)))];

/**
 * The cited sources `viewer` may read now (as object_type:object_id keys), checked at every view, so a
 * source restricted after the chat was shared is withheld from then on. Nobody signed in (null) or a
 * landing-page visitor: passages of public uploads only; incidents, cases, runbooks and any other
 * workspace record never (no record type is public). A member: what their own chat would show them.
 * `tx` must run in the viewer's tenant scope (its user id), which incidentScope reads.
 */
export async function readableSources(tx: Executor, viewer: Chatter | null, orgId: number, sources: MessageSource[]): Promise<Set<string>> {
  const readable = new Set<string>();
  const member = viewer && viewer.userId !== null && viewer.sessionId === null ? viewer : null;
  const chunkIds = idsOf(sources, 'chunk');
  if (chunkIds.length) {
    const allowed = member ? accessCondition(accessOf(member), orgId) : sql`c.sensitivity_level = 'public'`;
    const rows = rowsOf<{ id: number | string }>(
      await tx.execute(
        sql`select c.id from chunks c where c.organization_id = ${orgId} and c.id in (${sql.join(
          chunkIds.map((id) => sql`${id}`),
          sql`, `,
        )}) and ${allowed}`,
      ),
    );
    for (const r of rows) readable.add(`chunk:${Number(r.id)}`);
  }
  if (!member) return readable;
  const ctx = { orgId, userId: member.userId, role: member.role ?? 'Member', tx } as unknown as RequestContext;
  const incidentIds = idsOf(sources, 'incident');
  if (incidentIds.length) {
    const rows = await tx
      .select({ id: incidents.id })
      .from(incidents)
      .where(and(inArray(incidents.id, incidentIds), incidentScope(ctx)));
    for (const r of rows) readable.add(`incident:${r.id}`);
  }
  const caseIds = idsOf(sources, 'case');
  if (caseIds.length) {
    const rows = await tx
      .select({ id: cases.id })
      .from(cases)
      .where(and(inArray(cases.id, caseIds), caseScope(ctx)));
    for (const r of rows) readable.add(`case:${r.id}`);
  }
  // Runbooks are every member's to read.
  for (const s of sources) if (s.object_type === 'runbook') readable.add(keyOf(s));
  return readable;
}

/** Citations ([2], [2][3]) a piece of an answer carries. */
const citations = (text: string) => [...text.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));

/** A line's sentences, each with the citations that follow its full stop ("… keys. [1]") kept on it. */
function units(line: string): string[] {
  const out: string[] = [];
  for (const s of line.split(/(?<=[.!?])\s+/)) {
    const lead = /^(\s*\[\d+\])+/.exec(s)?.[0] ?? '';
    if (out.length && lead) out[out.length - 1] += lead;
    const rest = s.slice(lead.length).trim();
    if (rest) out.push(rest);
  }
  return out;
}

/**
 * The answer without what quotes a hidden source (by citation number). Answers are grounded (every
 * sentence cites its passage, answer.ts `ungrounded`; extractive paragraphs quote one passage under its
 * title), so a sentence citing a hidden source goes, as does any uncited sentence beside it in that
 * paragraph; each run of removed sentences becomes WITHHELD_NOTE. Paragraphs citing no hidden source stay as written.
 */
export function redactAnswer(text: string, hidden: Set<number>): string {
  if (!hidden.size) return text;
  const paragraphs = text.split(/\n{2,}/).map((p) => {
    if (!citations(p).some((n) => hidden.has(n))) return p;
    let dropped = false;
    const lines = p.split('\n').map((line) => {
      const kept: string[] = [];
      for (const u of units(line)) {
        const cited = citations(u);
        if (cited.length && !cited.some((n) => hidden.has(n))) kept.push(u);
        else if (!kept.length || kept[kept.length - 1] !== WITHHELD_NOTE) kept.push(WITHHELD_NOTE);
        if (kept[kept.length - 1] === WITHHELD_NOTE) dropped = true;
      }
      return kept.join(' ');
    });
    return dropped ? lines.join('\n') : p;
  });
  // Neighbouring paragraphs that are only the note read once.
  return paragraphs.filter((p, i) => !(p === WITHHELD_NOTE && paragraphs[i - 1] === WITHHELD_NOTE)).join('\n\n');
}

interface ViewedMessage {
  text: string;
  sources: MessageSource[];
  notice: string | null;
}

/** A message as a reader of a shared chat sees it: withheld sources named only as such, their text gone. */
export function withheldFor<T extends ViewedMessage>(message: T, readable: Set<string>): T & { withheld: number } {
  const hidden = new Set(message.sources.filter((s) => !readable.has(keyOf(s))).map((s) => s.n));
  if (!hidden.size) return { ...message, withheld: 0 };
  return {
    ...message,
    text: redactAnswer(message.text, hidden),
    sources: message.sources.map((s) =>
      hidden.has(s.n) ? { n: s.n, object_type: 'withheld', object_id: s.n, title: WITHHELD_TITLE, place: {}, snippet: '', url: null } : s,
    ),
    // A notice may quote a sentence of the set-aside model answer ("a sentence cites no passage ("…")").
    notice: message.notice?.replace(/\s*\("[^]*?"\)/g, '') ?? null,
    withheld: hidden.size,
  };
}

/** A shared chat's messages as `viewer` (null: nobody signed in) may read them now. */
export async function sharedMessages<T extends ViewedMessage>(tx: Executor, viewer: Chatter | null, orgId: number, messages: T[]) {
  const readable = await readableSources(
    tx,
    viewer,
    orgId,
    messages.flatMap((m) => m.sources),
  );
  return messages.map((m) => withheldFor(m, readable));
}

const REASONS: Record<string, string> = {
  chunk: 'Not a public upload: only members may read it.',
  incident: 'An incident: never shown to readers who are not signed in.',
  case: 'A case: never shown to readers who are not signed in.',
  runbook: 'A runbook: never shown to readers who are not signed in.',
};

/** For the share dialog: each source the chat cites, once, and whether a reader who is not signed in would see it. */
export async function sharePreview(tx: Executor, orgId: number, messages: { sources: MessageSource[] }[]) {
  const all = messages.flatMap((m) => m.sources);
  const readable = await readableSources(tx, null, orgId, all);
  // Passages of one upload are one source (they share its level).
  const cited = new Map<string, { title: string; object_type: string; public: boolean }>();
  for (const s of all) {
    const group = s.submission_id ? `submission:${s.submission_id}` : keyOf(s);
    const shown = readable.has(keyOf(s));
    const seen = cited.get(group);
    cited.set(group, { title: s.title, object_type: s.object_type, public: (seen?.public ?? true) && shown });
  }
  const sources = [...cited.values()].map((s) => ({ ...s, reason: s.public ? null : (REASONS[s.object_type] ?? 'Only members may read it.') }));
  return { sources, withheld: sources.filter((s) => !s.public).length };
}
