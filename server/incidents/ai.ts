import type { Config } from '../core/config.js';
import { summarize as aiSummarize } from '../ai/answer.js';

/**
 * The AI layer as incidents use it: the AI workspace's summarizer (the configured model, else the
 * most central sentences of the texts, so it works offline and never invents anything).
 * `setSummarizer` swaps it (e.g. a stub in a test).
 */
export interface SummaryRequest {
  config: Config;
  /** What the summary is for, e.g. "step 'Contain' of IAO-3"; given to the model as its instruction. */
  subject: string;
  texts: string[];
  maxSentences?: number;
}
export interface Summary {
  summary: string;
  /** 'extractive' or the model's name. */
  method: string;
  notice?: string | null;
}
export type Summarizer = (req: SummaryRequest) => Promise<Summary>;

export const aiLayerSummarizer: Summarizer = async ({ config, subject, texts, maxSentences = 3 }) => {
  const result = await aiSummarize(config, texts, {
    instruction: `Summarize the ${subject} for an incident responder in at most ${maxSentences} sentences. Use only what the texts say.`,
    maxSentences,
  });
  return { summary: result.summary || 'Nothing has been recorded yet.', method: result.answered_by, notice: result.notice };
};

let summarizer: Summarizer = aiLayerSummarizer;
export const summarize: Summarizer = (req) => summarizer(req);
export function setSummarizer(s: Summarizer) {
  summarizer = s;
}
