import type { Config } from '../core/config.js';

/**
 * The AI layer as incidents and cases use it: a summarizer the AI workspace's plugin sets (the
 * configured model, else the most central sentences of the texts, so it works offline and never
 * invents anything). Set from the plugin rather than imported, so incidents sit below the AI layer.
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

let summarizer: Summarizer = () => Promise.reject(new Error('No summarizer is set: the AI workspace plugin is not loaded.'));
export const summarize: Summarizer = (req) => summarizer(req);
export function setSummarizer(s: Summarizer) {
  summarizer = s;
}
