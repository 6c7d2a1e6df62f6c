/**
 * The AI layer as incidents use it: a summarizer over a few texts. Until the AI workspace's
 * summarizer is wired in with `setSummarizer`, an extractive one picks the sentences that share the
 * most words with the rest (useful offline, never invents anything).
 */
export interface SummaryRequest {
  /** What the summary is for, e.g. "step 'Contain' of IAO-3". */
  subject: string;
  texts: string[];
  maxSentences?: number;
}
export interface Summary {
  summary: string;
  method: string;
}
export type Summarizer = (req: SummaryRequest) => Promise<Summary>;

const STOP = new Set('a an and are as at be by for from has have in is it its of on or that the this to was were will with not no we our'.split(' '));
const words = (s: string) => s.toLowerCase().match(/[a-z0-9][a-z0-9_-]+/g)?.filter((w) => !STOP.has(w)) ?? [];

export const extractiveSummarizer: Summarizer = async ({ texts, maxSentences = 3 }) => {
  const sentences = texts.flatMap((t) => t.split(/(?<=[.!?])\s+|\n+/)).map((s) => s.trim()).filter((s) => s.length > 3);
  if (!sentences.length) return { summary: 'Nothing has been recorded yet.', method: 'extractive' };
  const freq = new Map<string, number>();
  for (const s of sentences) for (const w of new Set(words(s))) freq.set(w, (freq.get(w) ?? 0) + 1);
  const scored = sentences.map((s, i) => {
    const ws = words(s);
    const score = ws.length ? ws.reduce((sum, w) => sum + (freq.get(w) ?? 0), 0) / Math.sqrt(ws.length) : 0;
    return { s, i, score };
  });
  const picked = [...scored].sort((a, b) => b.score - a.score || a.i - b.i).slice(0, maxSentences).sort((a, b) => a.i - b.i);
  return { summary: picked.map((p) => p.s).join(' '), method: 'extractive' };
};

let summarizer: Summarizer = extractiveSummarizer;
export const summarize: Summarizer = (req) => summarizer(req);
export function setSummarizer(s: Summarizer) {
  summarizer = s;
}
