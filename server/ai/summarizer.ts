import { summarize } from './answer.js';
import type { Summarizer } from '../incidents/ai.js';

/** The summarizer incidents and cases use (step summaries, a case's probable cause), set by the AI plugin. */
export const aiLayerSummarizer: Summarizer = async ({ config, subject, texts, maxSentences = 3 }) => {
  const result = await summarize(config, texts, {
    instruction: `Summarize the ${subject} for an incident responder in at most ${maxSentences} sentences. Use only what the texts say.`,
    maxSentences,
  });
  return { summary: result.summary || 'Nothing has been recorded yet.', method: result.answered_by, notice: result.notice };
};
