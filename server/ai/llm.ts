import type { Config } from '../config.js';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** Thrown when the model cannot answer (unreachable, error status, timeout, malformed stream). */
export class ModelError extends Error {}

export interface ModelSettings {
  baseUrl: string;
  apiKey?: string;
  model: string;
  timeoutMs: number;
}

/** The configured OpenAI-compatible model, or null when answers stay extractive. */
export function modelSettings(config: Config): ModelSettings | null {
  if (!config.AI_BASE_URL || !config.AI_MODEL) return null;
  return { baseUrl: config.AI_BASE_URL.replace(/\/+$/, ''), apiKey: config.AI_API_KEY, model: config.AI_MODEL, timeoutMs: config.AI_TIMEOUT_MS };
}

/**
 * Streams a chat completion (OpenAI's `stream: true` server-sent events: `data: {choices:[{delta:
 * {content}}]}` lines ending with `data: [DONE]`), calling `onToken` per piece; returns the whole text.
 * The timeout covers the whole answer, so a stalled stream fails instead of hanging the chat.
 */
export async function streamCompletion(settings: ModelSettings, messages: ChatMessage[], onToken: (text: string) => void): Promise<string> {
  const signal = AbortSignal.timeout(settings.timeoutMs);
  let res: Response;
  try {
    res = await fetch(`${settings.baseUrl}/chat/completions`, {
      method: 'POST',
      signal,
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}) },
      body: JSON.stringify({ model: settings.model, messages, stream: true, temperature: 0.2 }),
    });
  } catch (err) {
    throw new ModelError((err as Error).name === 'TimeoutError' ? 'the model did not answer in time' : `the model could not be reached (${(err as Error).message})`);
  }
  if (!res.ok || !res.body) {
    const body = await res.text().catch(() => '');
    throw new ModelError(`the model answered ${res.status}${body ? `: ${body.slice(0, 200)}` : ''}`);
  }
  let text = '';
  let buffer = '';
  let done = false;
  const decoder = new TextDecoder();
  try {
    for await (const part of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(part, { stream: true });
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl).trim();
        buffer = buffer.slice(nl + 1);
        if (!line.startsWith('data:')) continue;
        const payload = line.slice(5).trim();
        if (payload === '[DONE]') {
          done = true;
          break;
        }
        let event: { choices?: { delta?: { content?: string } }[]; error?: { message?: string } };
        try {
          event = JSON.parse(payload);
        } catch {
          throw new ModelError('the model sent a malformed stream');
        }
        if (event.error) throw new ModelError(`the model reported an error: ${event.error.message ?? 'unknown'}`);
        const piece = event.choices?.[0]?.delta?.content;
        if (piece) {
          text += piece;
          onToken(piece);
        }
      }
      if (done) break;
    }
  } catch (err) {
    if (err instanceof ModelError) throw err;
    throw new ModelError((err as Error).name === 'TimeoutError' || signal.aborted ? 'the model did not answer in time' : `the stream broke off (${(err as Error).message})`);
  }
  if (!done && !text) throw new ModelError('the model ended the stream without an answer');
  return text;
}
