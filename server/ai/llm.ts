import { and, eq, sql } from 'drizzle-orm';
import type { Config } from '../core/config.js';
import type { Db, Executor } from '../core/db/client.js';
import { pluginInstances } from '../plugins/tables.js';
import { decryptSecret } from '../plugins/secrets.js';
import { capabilityOf, slugsWith } from '../plugins/registry.js';
import { OutboundRefused, outboundFetch } from '../core/http/outbound.js';

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
  /**
   * Set for an organization's own endpoint (an ai-model plugin instance): the call goes through core's
   * outbound policy and a failing answer's body is not quoted. The operator's AI_BASE_URL is called
   * directly: the operator chose it, and it is often a model on the same host (Ollama on localhost).
   */
  outbound?: Pick<Config, 'OUTBOUND_ALLOW'>;
}

/** The configured OpenAI-compatible model, or null when answers stay extractive. */
export function modelSettings(config: Config): ModelSettings | null {
  if (!config.AI_BASE_URL || !config.AI_MODEL) return null;
  return { baseUrl: config.AI_BASE_URL.replace(/\/+$/, ''), apiKey: config.AI_API_KEY, model: config.AI_MODEL, timeoutMs: config.AI_TIMEOUT_MS };
}

declare module '../plugins/registry.js' {
  interface Capabilities {
    /** The model settings an instance's configuration (secrets opened) gives the chat. */
    answer: (config: Record<string, unknown>, defaults: { timeoutMs: number }) => ModelSettings;
  }
}

/**
 * The model an organization's answers use: its enabled plugin instance that answers (one for the
 * project wins over one for the whole organization; the newest if several), else the server's
 * environment (AI_BASE_URL, AI_MODEL, AI_API_KEY), else null. Runs in the caller's tenant
 * transaction; `system` opens the sealed API key.
 */
export async function modelFor(tx: Executor, system: Db, config: Config, orgId: number, projectId: number | null): Promise<ModelSettings | null> {
  const rows = await tx
    .select({
      project_id: pluginInstances.project_id,
      plugin_slug: pluginInstances.plugin_slug,
      configuration: pluginInstances.configuration,
      secrets: pluginInstances.secrets,
      id: pluginInstances.id,
    })
    .from(pluginInstances)
    .where(
      and(
        eq(pluginInstances.organization_id, orgId),
        sql`${pluginInstances.plugin_slug} = any(${sql.param(slugsWith('answer'))}::text[])`,
        eq(pluginInstances.enabled, true),
      ),
    );
  const fits = rows
    .filter((r) => r.project_id === null || r.project_id === projectId)
    .sort((a, b) => Number(b.project_id !== null) - Number(a.project_id !== null) || b.id - a.id);
  const chosen = fits[0];
  if (!chosen) return modelSettings(config);
  const opened = Object.fromEntries(Object.entries(chosen.secrets).map(([k, v]) => [k, decryptSecret(system, v)]));
  // A plugin instance's endpoint is a user's URL: its calls go through the outbound policy.
  return {
    ...capabilityOf({ slug: chosen.plugin_slug }, 'answer')!({ ...chosen.configuration, ...opened }, { timeoutMs: config.AI_TIMEOUT_MS }),
    outbound: config,
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
  const policy = settings.outbound;
  const client = new sdk.OpenAI({
    baseURL: settings.baseUrl,
    apiKey: settings.apiKey ?? 'none',
    maxRetries: 0,
    timeout: settings.timeoutMs,
    ...(policy ? { fetch: (url: string | URL | Request, init?: RequestInit) => outboundFetch(policy, url, init) } : {}),
  });
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
    throw modelError(err, signal, sdk, !settings.outbound);
  }
  if (!text) throw new ModelError('the model ended the stream without an answer');
  return text;
}

/** What went wrong, in words for the notice the chat shows. */
function modelError(err: unknown, signal: AbortSignal, sdk: typeof import('openai'), quoteBody: boolean): ModelError {
  const { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } = sdk;
  if (signal.aborted || err instanceof APIConnectionTimeoutError || err instanceof APIUserAbortError) return new ModelError('the model did not answer in time');
  if (err instanceof APIError && err.status !== undefined) {
    const body = err.error && quoteBody ? JSON.stringify(err.error) : '';
    return new ModelError(`the model answered ${err.status}${body ? `: ${body.slice(0, 200)}` : ''}`);
  }
  if (err instanceof APIConnectionError)
    return new ModelError(`the model could not be reached (${err.cause instanceof OutboundRefused ? err.cause.message : err.message})`);
  if (err instanceof APIError) return new ModelError(`the model reported an error: ${err.message}`);
  return new ModelError(`the stream broke off (${(err as Error).message})`);
}
