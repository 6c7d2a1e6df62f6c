import type { Config } from '../core/config.js';
import type { ChunkPlace, MessageSource } from './tables.js';
import { sentences } from './chunk.js';
import { modelSettings, ModelError, streamCompletion, type ChatMessage } from './llm.js';
import type { Passage } from './retrieve.js';

const STOP = new Set(
  'a an and are as at be but by can do does for from has have how i if in into is it its me my no not of on or our so than that the their them then there these they this to us was we were what when where which who why will with you your about should could would after before during may must please tell explain'.split(' '),
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
    return { n: i + 1, object_type: p.object_type, object_id: p.object_id, submission_id: p.submission_id, title: p.title, place: p.place, snippet: p.headline || p.text.slice(0, 240), url };
  });
}

export const NO_MATCH =
  "I could not find anything about that in this project's material. Try other words, or upload the documents that cover it.";

/**
 * The offline answer: the sentences that share the most words with the question, grouped by source
 * in rank order, each group cited. Nothing is invented, so every sentence is checkable.
 */
export function extractiveAnswer(question: string, passages: Passage[], maxSentences = 5): string {
  if (!passages.length) return NO_MATCH;
  const want = new Set(terms(question));
  const scored: { source: number; order: number; text: string; score: number }[] = [];
  passages.forEach((p, source) => {
    sentences(p.text.replace(/\n+/g, ' ')).forEach((s, order) => {
      const words = terms(s);
      if (!words.length) return;
      const hit = new Set(words.filter((w) => want.has(w))).size;
      // Earlier sources were ranked higher by retrieval; a small bonus keeps their sentences first on ties.
      scored.push({ source, order, text: s, score: hit / Math.sqrt(want.size || 1) + (passages.length - source) * 0.01 });
    });
  });
  let best = scored.filter((s) => s.score >= 0.3).sort((a, b) => b.score - a.score).slice(0, maxSentences);
  if (!best.length) best = scored.filter((s) => s.source === 0).slice(0, 2);
  const groups = new Map<number, typeof best>();
  for (const s of best.sort((a, b) => a.source - b.source || a.order - b.order)) {
    if (!groups.has(s.source)) groups.set(s.source, []);
    groups.get(s.source)!.push(s);
  }
  return [...groups]
    .map(([source, list]) => {
      const p = passages[source]!;
      const where = describePlace(p.place);
      const body = list.map((s) => s.text.replace(/\s+/g, ' ').trim()).join(' ');
      return `From ${p.title}${where ? ` (${where})` : ''}: ${body} [${source + 1}]`;
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
  return [{ role: 'system', content: SYSTEM }, ...history.slice(-6), { role: 'user', content: `Passages:\n\n${context || '(none found)'}\n\nQuestion: ${question}` }];
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
  io: { onToken(text: string): void; onReset?(notice: string): void; history?: ChatMessage[] },
): Promise<AnswerResult> {
  const sources = toSources(passages);
  const settings = modelSettings(config);
  if (settings && passages.length) {
    let streamed = false;
    try {
      const text = await streamCompletion(settings, prompt(question, passages, io.history ?? []), (t) => {
        streamed = true;
        io.onToken(t);
      });
      return { answer: text, sources, answered_by: settings.model, notice: null };
    } catch (err) {
      const why = err instanceof ModelError ? err.message : 'an unexpected error';
      const notice = `The AI model could not answer (${why}); this answer quotes the sources directly.`;
      if (streamed) io.onReset?.(notice);
      const text = extractiveAnswer(question, passages);
      for (const p of pieces(text)) io.onToken(p);
      return { answer: text, sources, answered_by: 'extractive', notice };
    }
  }
  const text = extractiveAnswer(question, passages);
  for (const p of pieces(text)) io.onToken(p);
  return { answer: text, sources: passages.length ? sources : [], answered_by: 'extractive', notice: null };
}

/**
 * The summarizer other domains call (incident step summaries, feedback summaries, case probable
 * cause): the model when configured, else the most central sentences of the texts.
 */
export async function summarize(config: Config, texts: string[], opts: { instruction?: string; maxSentences?: number } = {}): Promise<{ summary: string; answered_by: string; notice: string | null }> {
  const clean = texts.map((t) => t.trim()).filter(Boolean);
  if (!clean.length) return { summary: '', answered_by: 'extractive', notice: null };
  const settings = modelSettings(config);
  if (settings) {
    try {
      const summary = await streamCompletion(
        settings,
        [
          { role: 'system', content: opts.instruction ?? 'Summarize the following texts for an incident responder in a few sentences. Use only what the texts say.' },
          { role: 'user', content: clean.map((t, i) => `(${i + 1}) ${t}`).join('\n\n') },
        ],
        () => {},
      );
      return { summary: summary.trim(), answered_by: settings.model, notice: null };
    } catch (err) {
      const fallback = extractiveSummary(clean, opts.maxSentences);
      return { summary: fallback, answered_by: 'extractive', notice: `The AI model could not summarize (${(err as Error).message}); this summary quotes the texts.` };
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
