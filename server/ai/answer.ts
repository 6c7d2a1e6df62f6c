import type { Config } from '../core/config.js';
import type { ChunkPlace, MessageSource } from './tables.js';
import { sentences } from './chunk.js';
import { modelSettings, ModelError, streamCompletion, type ChatMessage, type ModelSettings } from './llm.js';
import type { Passage } from './retrieve.js';

const STOP = new Set(
  'a an and are as at be but by can do does for from has have how i if in into is it its me my no not of on or our so than that the their them then there these they this to us was we were what when where which who why will with you your about should could would after before during may must please tell explain'.split(
    ' ',
  ),
);

/** Lower-case word stems (crude: the first 5 letters), without stop words. */
export function terms(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9][a-z0-9._-]*/g) ?? []).filter((w) => !STOP.has(w)).map((w) => (/^[a-z]+$/.test(w) ? w.slice(0, 5) : w));
}

/** "page 2", "Setup › Disks", "01:02:03": how a citation names its place. */
export function describePlace(place: ChunkPlace): string {
  const parts: string[] = [];
  if (place.page !== undefined) parts.push(`page ${place.page}`);
  if (place.heading) parts.push(place.heading);
  if (place.start !== undefined) parts.push(formatTime(place.start));
  if (place.row !== undefined) parts.push(`row ${place.row}`);
  if (place.line !== undefined && !parts.length) parts.push(`line ${place.line}`);
  if (place.path) parts.push(place.path);
  return parts.join(', ');
}

/** How the offline answer introduces a passage's sentences: "From bugs.md (Reporting): ". */
export function fromLead(title: string, place: ChunkPlace): string {
  const where = describePlace(place);
  return `From ${title}${where ? ` (${where})` : ''}: `;
}

export function formatTime(seconds: number): string {
  const s = Math.floor(seconds);
  const hh = Math.floor(s / 3600);
  const mm = String(Math.floor((s % 3600) / 60)).padStart(2, '0');
  const ss = String(s % 60).padStart(2, '0');
  return hh ? `${hh}:${mm}:${ss}` : `${mm}:${ss}`;
}

/** Numbered sources as the client shows them; a video cue links to its moment. */
export function toSources(passages: Passage[]): MessageSource[] {
  return passages.map((p, i) => {
    let url = p.url ?? null;
    if (url && p.place.start !== undefined && /youtu/.test(url)) url = `${url}${url.includes('?') ? '&' : '?'}t=${Math.floor(p.place.start)}s`;
    return {
      n: i + 1,
      object_type: p.object_type,
      object_id: p.object_id,
      submission_id: p.submission_id,
      title: p.title,
      place: p.place,
      snippet: p.headline || p.text.slice(0, 240),
      url,
    };
  });
}

export const NO_MATCH = "I could not find anything about that in this project's material. Try other words, or upload the documents that cover it.";

/** What a question asks for: a command to run, a setting to change, a number; or nothing in particular. */
type Wants = 'command' | 'setting' | 'number' | null;

export function wants(question: string): Wants {
  const q = question.toLowerCase();
  if (
    /\b(how (many|much|long|often|big|large|fast)|what (is|are) the (limit|size|number|count|timeout|port|default|maximum|minimum|value|version)|when\b|what time|how soon)/.test(
      q,
    )
  )
    return 'number';
  if (/\b(setting|option|config(ure|uration)?|parameter|flag|variable|env(ironment)?|property|key)\b/.test(q)) return 'setting';
  if (
    /\b(how (do|can|should|would) (i|we|you|one)|how to|command|run|fix|restart|rotate|reset|enable|disable|install|clear|recover|deploy|roll ?back)\b/.test(q)
  )
    return 'command';
  return null;
}

// What marks a sentence that answers, rather than one that talks about the subject.
const COMMAND =
  /(^|[\s(])(run|execute|restart|type|enter|invoke|sudo|kubectl|systemctl|service|git|npm|npx|docker|curl|psql|ssh|make|helm|terraform|aws|gcloud|az|pg_\w+|\w+ctl)\b|\s--?[a-z][\w-]*|\$\s|`/i;
const SETTING =
  /\b[A-Za-z_][\w.-]*\s*=\s*\S|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|\b[a-z]+(_[a-z0-9]+)+\b|\b[a-z]+(\.[a-z_]+){1,}\b|\/etc\/|\.(conf|ya?ml|toml|ini|json|env)\b|\bset (it |this |the \w+ )?to\b/;
const NUMBER = /\b\d+([.,]\d+)?\s*(%|ms|s|sec|secs|seconds?|minutes?|mins?|hours?|h|days?|weeks?|[kmgt]i?b|bytes?|requests?|connections?|times|x)?\b/i;

/** How much a sentence looks like an answer to what the question wants (0 to 1). */
function answerness(sentence: string, want: Wants): number {
  const marks = { command: COMMAND.test(sentence), setting: SETTING.test(sentence), number: NUMBER.test(sentence) };
  if (want && marks[want]) return 1;
  // A command is a way to change a setting and the other way round.
  if ((want === 'command' && marks.setting) || (want === 'setting' && marks.command)) return 0.7;
  return marks.command || marks.setting || marks.number ? 0.3 : 0;
}

/**
 * The offline answer: the passages' sentences that share words with the question, best first, each
 * one cited with its passage's number, so every sentence is checkable and nothing is invented. A
 * sentence that answers (a command, a setting, a number, as the question asks) comes before one that
 * only repeats the question's words; a sentence that brings nothing the question did not say, or is
 * itself a question, is left out while others remain.
 */
export function extractiveAnswer(question: string, passages: Passage[], maxSentences = 4): string {
  if (!passages.length) return NO_MATCH;
  const want = new Set(terms(question));
  const kind = wants(question);
  type Scored = { source: number; order: number; text: string; score: number; echo: boolean; also: number[] };
  const scored: Scored[] = [];
  const seen = new Map<string, Scored | null>();
  passages.forEach((p, source) => {
    const list = sentences(p.text).map((text) => ({ text, words: terms(text) }));
    const hits = list.map(({ words }) => new Set(words.filter((w) => want.has(w))).size);
    list.forEach(({ text, words }, order) => {
      if (!words.length) return;
      const key = text.toLowerCase();
      if (seen.has(key)) {
        // The same sentence in another passage (a liked Q&A quoting its document): said once, cited to both.
        const first = seen.get(key);
        if (first && first.source !== source && !first.also.includes(source)) first.also.push(source);
        return;
      }
      seen.set(key, null);
      const hit = hits[order]!;
      // A sentence without the question's words may still answer when it follows one that has them
      // in the best passage ("The pool timeout is configurable. It defaults to 30 seconds.").
      const near = source === 0 && (hits[order - 1] ?? 0) > 0;
      if (!hit && !near) return;
      const novel = new Set(words.filter((w) => !want.has(w))).size;
      const echo = text.endsWith('?') || novel < 2;
      // Sharing the question's words finds the topic (retrieval already did most of that); within
      // it the sentence that answers wins. Earlier sources were ranked higher by retrieval: a small
      // bonus keeps their sentences first on ties.
      const score = (hit ? 0.5 + (0.5 * hit) / (want.size || 1) : 0.3) + answerness(text, kind) + (passages.length - source) * 0.01;
      const entry = { source, order, text, score: echo ? score * 0.2 : score, echo, also: [] };
      scored.push(entry);
      seen.set(key, entry);
    });
  });
  const ranked = scored.sort((a, b) => b.score - a.score);
  let best = ranked.filter((s) => !s.echo).slice(0, maxSentences);
  if (!best.length) best = ranked.slice(0, 2);
  if (!best.length)
    best = sentences(passages[0]!.text)
      .slice(0, 2)
      .map((text, order) => ({ source: 0, order, text, score: 0, echo: false, also: [] }));
  // Sentences of one passage stay together, in their own order, under its title; passages follow
  // the order of their best sentence, so the answering one leads.
  const groups = new Map<number, typeof best>();
  for (const s of best) {
    if (!groups.has(s.source)) groups.set(s.source, []);
    groups.get(s.source)!.push(s);
  }
  return [...groups]
    .map(([source, list]) => {
      const p = passages[source]!;
      const body = list
        .sort((a, b) => a.order - b.order)
        .map((s) => `${s.text} ${[source, ...s.also].map((n) => `[${n + 1}]`).join('')}`)
        .join(' ');
      return `${fromLead(p.title, p.place)}${body}`;
    })
    .join('\n\n');
}

export interface AnswerResult {
  answer: string;
  sources: MessageSource[];
  answered_by: string;
  notice: string | null;
}

const SYSTEM = `You are Firewatch's assistant for incident and operations teams. Answer the question using only the numbered passages. Cite every claim with the passage number in square brackets, like [1] or [2][3]. If the passages do not answer the question, say so plainly. Be concise.`;

function prompt(question: string, passages: Passage[], history: ChatMessage[]): ChatMessage[] {
  const context = passages.map((p, i) => `[${i + 1}] ${p.title}${describePlace(p.place) ? ` (${describePlace(p.place)})` : ''}\n${p.text}`).join('\n\n');
  return [
    { role: 'system', content: SYSTEM },
    ...history.slice(-6),
    { role: 'user', content: `Passages:\n\n${context || '(none found)'}\n\nQuestion: ${question}` },
  ];
}

/**
 * Why a model's answer cannot stand, or null when it is grounded: every sentence must cite at least
 * one of the `given` passages as [n], and no citation may name a passage it was not given. A
 * citation standing after the full stop ("… keys. [1]") belongs to the sentence before it; a lead-in
 * line ending in a colon ("Steps:") makes no claim of its own.
 */
export function ungrounded(answer: string, given: number): string | null {
  const units: string[] = [];
  for (const s of sentences(answer)) {
    const lead = /^(\s*\[\d+\])+/.exec(s)?.[0] ?? '';
    if (units.length && lead) units[units.length - 1] += lead;
    const rest = s.slice(lead.length).trim();
    if (/[\p{L}\p{N}]/u.test(rest)) units.push(rest);
  }
  const cited = [...answer.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
  if (!cited.length) return 'it cites none of the passages';
  const unknown = cited.find((n) => n < 1 || n > given);
  if (unknown !== undefined) return `it cites passage [${unknown}], which it was not given (it had ${given})`;
  const bare = units.find((u) => !/\[\d+\]/.test(u) && !/:\s*$/.test(u) && /[\p{L}\p{N}]{2}/u.test(u));
  if (bare) return `a sentence cites no passage ("${bare.length > 80 ? `${bare.slice(0, 77)}…` : bare}")`;
  return null;
}

/** Splits a finished answer into pieces for the socket, so extractive answers stream like a model's. */
function* pieces(text: string): Generator<string> {
  const parts = text.match(/\S+\s*/g) ?? [];
  for (let i = 0; i < parts.length; i += 4) yield parts.slice(i, i + 4).join('');
}

/**
 * Answers from the passages: with a configured model, streamed token by token; without one, or when
 * the model fails, extractively with a notice. `onReset` tells the client to drop a partial answer.
 */
export async function answer(
  config: Config,
  question: string,
  passages: Passage[],
  io: { onToken(text: string): void; onReset?(notice: string): void; history?: ChatMessage[]; model?: ModelSettings | null },
): Promise<AnswerResult> {
  const sources = toSources(passages);
  // The organization's model (modelFor) when the caller looked it up; else the server's default.
  const settings = io.model !== undefined ? io.model : modelSettings(config);
  if (settings && passages.length) {
    let streamed = false;
    let notice: string;
    try {
      const text = await streamCompletion(settings, prompt(question, passages, io.history ?? []), (t) => {
        streamed = true;
        io.onToken(t);
      });
      const problem = ungrounded(text, passages.length);
      if (!problem) return { answer: text, sources, answered_by: settings.model, notice: null };
      notice = `The AI model's answer was set aside because ${problem}; this answer quotes the sources directly.`;
    } catch (err) {
      const why = err instanceof ModelError ? err.message : 'an unexpected error';
      notice = `The AI model could not answer (${why}); this answer quotes the sources directly.`;
    }
    if (streamed) io.onReset?.(notice);
    const text = extractiveAnswer(question, passages);
    for (const p of pieces(text)) io.onToken(p);
    return { answer: text, sources, answered_by: 'extractive', notice };
  }
  const text = extractiveAnswer(question, passages);
  for (const p of pieces(text)) io.onToken(p);
  return { answer: text, sources: passages.length ? sources : [], answered_by: 'extractive', notice: null };
}

/**
 * The summarizer other domains call (incident step summaries, feedback summaries, case probable
 * cause): the model when configured, else the most central sentences of the texts.
 */
export async function summarize(
  config: Config,
  texts: string[],
  opts: { instruction?: string; maxSentences?: number; model?: ModelSettings | null } = {},
): Promise<{ summary: string; answered_by: string; notice: string | null }> {
  const clean = texts.map((t) => t.trim()).filter(Boolean);
  if (!clean.length) return { summary: '', answered_by: 'extractive', notice: null };
  const settings = opts.model !== undefined ? opts.model : modelSettings(config);
  if (settings) {
    try {
      const summary = await streamCompletion(
        settings,
        [
          {
            role: 'system',
            content: opts.instruction ?? 'Summarize the following texts for an incident responder in a few sentences. Use only what the texts say.',
          },
          { role: 'user', content: clean.map((t, i) => `(${i + 1}) ${t}`).join('\n\n') },
        ],
        () => {},
      );
      return { summary: summary.trim(), answered_by: settings.model, notice: null };
    } catch (err) {
      const fallback = extractiveSummary(clean, opts.maxSentences);
      return {
        summary: fallback,
        answered_by: 'extractive',
        notice: `The AI model could not summarize (${(err as Error).message}); this summary quotes the texts.`,
      };
    }
  }
  return { summary: extractiveSummary(clean, opts.maxSentences), answered_by: 'extractive', notice: null };
}

/** Sentences whose words recur most across all texts, in their original order. */
export function extractiveSummary(texts: string[], maxSentences = 3): string {
  const all = texts.flatMap((t, ti) => sentences(t.replace(/\n+/g, ' ')).map((s, si) => ({ s, key: ti * 10000 + si })));
  const freq = new Map<string, number>();
  for (const { s } of all) for (const w of new Set(terms(s))) freq.set(w, (freq.get(w) ?? 0) + 1);
  const scored = all.map((x) => {
    const words = terms(x.s);
    return { ...x, score: words.length ? words.reduce((a, w) => a + (freq.get(w) ?? 0), 0) / Math.sqrt(words.length) : 0 };
  });
  return scored
    .sort((a, b) => b.score - a.score)
    .slice(0, maxSentences)
    .sort((a, b) => a.key - b.key)
    .map((x) => x.s)
    .join(' ');
}
