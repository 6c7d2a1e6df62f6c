import { and, eq } from 'drizzle-orm';
import type { Config } from '../core/config.js';
import type { Db, Executor } from '../core/db/client.js';
import { pluginInstances } from '../plugins/tables.js';
import { decryptSecret } from '../plugins/secrets.js';

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

/** The AI model plugin's slug (server/plugins/catalog.ts). */
export const AI_MODEL_PLUGIN = 'ai-model';

/**
 * The model an organization's answers use: its enabled 'ai-model' plugin instance (one for the
 * project wins over one for the whole organization; the newest if several), else the server's
 * environment (AI_BASE_URL, AI_MODEL, AI_API_KEY), else null. Runs in the caller's tenant
 * transaction; `system` opens the sealed API key.
 */
export async function modelFor(tx: Executor, system: Db, config: Config, orgId: number, projectId: number | null): Promise<ModelSettings | null> {
  const rows = await tx
    .select({ project_id: pluginInstances.project_id, configuration: pluginInstances.configuration, secrets: pluginInstances.secrets, id: pluginInstances.id })
    .from(pluginInstances)
    .where(and(eq(pluginInstances.organization_id, orgId), eq(pluginInstances.plugin_slug, AI_MODEL_PLUGIN), eq(pluginInstances.enabled, true)));
  const fits = rows
    .filter((r) => r.project_id === null || r.project_id === projectId)
    .sort((a, b) => Number(b.project_id !== null) - Number(a.project_id !== null) || b.id - a.id);
  const chosen = fits[0];
  if (!chosen) return modelSettings(config);
  const c = chosen.configuration;
  return {
    baseUrl: String(c.base_url).replace(/\/+$/, ''),
    model: String(c.model),
    apiKey: chosen.secrets.api_key ? decryptSecret(system, chosen.secrets.api_key) : undefined,
    timeoutMs: typeof c.timeout_ms === 'number' ? c.timeout_ms : config.AI_TIMEOUT_MS,
  };
}

/**
 * Streams a chat completion through the OpenAI SDK (which speaks to Ollama, vLLM and llama.cpp as
 * well), calling `onToken` per piece; returns the whole text. The timeout covers the whole answer,
 * so a stalled stream fails instead of hanging the chat.
 */
export async function streamCompletion(settings: ModelSettings, messages: ChatMessage[], onToken: (text: string) => void): Promise<string> {
  // Imported at the first answer: the SDK costs about a third of a second of CPU to load, which a
  // server without a model (and every test that builds the app) need not pay.
  const sdk = await import('openai');
  const signal = AbortSignal.timeout(settings.timeoutMs);
  // The chat falls back to an extractive answer at once rather than waiting out retries.
  const client = new sdk.OpenAI({ baseURL: settings.baseUrl, apiKey: settings.apiKey ?? 'none', maxRetries: 0, timeout: settings.timeoutMs });
  let text = '';
  try {
    const stream = await client.chat.completions.create({ model: settings.model, messages, stream: true, temperature: 0.2 }, { signal });
    for await (const chunk of stream) {
      const piece = chunk.choices?.[0]?.delta?.content;
      if (piece) {
        text += piece;
        onToken(piece);
      }
    }
    // The SDK ends a stream quietly when its signal aborts: a stalled answer must still fail.
    if (signal.aborted) throw new sdk.APIUserAbortError();
  } catch (err) {
    throw modelError(err, signal, sdk);
  }
  if (!text) throw new ModelError('the model ended the stream without an answer');
  return text;
}

/** What went wrong, in words for the notice the chat shows. */
function modelError(err: unknown, signal: AbortSignal, sdk: typeof import('openai')): ModelError {
  const { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } = sdk;
  if (signal.aborted || err instanceof APIConnectionTimeoutError || err instanceof APIUserAbortError) return new ModelError('the model did not answer in time');
  if (err instanceof APIError && err.status !== undefined) {
    const body = err.error ? JSON.stringify(err.error) : '';
    return new ModelError(`the model answered ${err.status}${body ? `: ${body.slice(0, 200)}` : ''}`);
  }
  if (err instanceof APIConnectionError) return new ModelError(`the model could not be reached (${err.message})`);
  if (err instanceof APIError) return new ModelError(`the model reported an error: ${err.message}`);
  return new ModelError(`the stream broke off (${(err as Error).message})`);
}
