import { LRUCache } from 'lru-cache';
/**
 * Optional hybrid retrieval: passages and questions get vectors from an OpenAI-compatible
 * `/v1/embeddings` endpoint (Ollama, vLLM, llama.cpp, OpenAI) and the vector ranking is fused with
 * the full-text one. Without EMBEDDINGS_BASE_URL and EMBEDDINGS_MODEL nothing changes. The vectors
 * rerank the full-text candidates (no pgvector: the PostgreSQL 15 of these machines lacks it), and a
 * passage's vector is kept in memory, so each passage is embedded once per process.
 */
import type { Config } from '../core/config.js';

export interface Embedder {
  model: string;
  embed(texts: string[]): Promise<number[][]>;
}

/** Reciprocal rank fusion's constant: ranks beyond the first few count little either way. */
const RRF_K = 60;
/** Vectors kept per process (a 1,024-dimension vector is 8 KB as numbers). */
const CACHE_SIZE = 20_000;

export class EmbeddingsError extends Error {}

/** A client for `POST {baseUrl}/embeddings` ({model, input: [...]} → {data: [{index, embedding}]}). */
export function embeddingsClient(opts: { baseUrl: string; model: string; apiKey?: string; timeoutMs: number }): Embedder {
  const url = `${opts.baseUrl.replace(/\/+$/, '')}/embeddings`;
  return {
    model: opts.model,
    async embed(texts) {
      if (!texts.length) return [];
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {}) },
        body: JSON.stringify({ model: opts.model, input: texts }),
        signal: AbortSignal.timeout(opts.timeoutMs),
      });
      if (!res.ok) throw new EmbeddingsError(`The embeddings endpoint answered ${res.status}.`);
      const body = (await res.json()) as { data?: { index?: number; embedding?: unknown }[] };
      const out: number[][] = new Array(texts.length);
      for (const [i, d] of (body.data ?? []).entries()) {
        const at = typeof d.index === 'number' ? d.index : i;
        if (Array.isArray(d.embedding) && at >= 0 && at < texts.length) out[at] = d.embedding as number[];
      }
      if (out.filter(Boolean).length !== texts.length) throw new EmbeddingsError('The embeddings endpoint did not return one vector per input.');
      return out;
    },
  };
}

let configured: Embedder | null = null;

/** Set once from the configuration (server/ai/plugin.ts); null turns hybrid retrieval off. */
export function configureEmbeddings(config: Pick<Config, 'EMBEDDINGS_BASE_URL' | 'EMBEDDINGS_API_KEY' | 'EMBEDDINGS_MODEL' | 'AI_TIMEOUT_MS'>) {
  configured =
    config.EMBEDDINGS_BASE_URL && config.EMBEDDINGS_MODEL
      ? embeddingsClient({
          baseUrl: config.EMBEDDINGS_BASE_URL,
          model: config.EMBEDDINGS_MODEL,
          apiKey: config.EMBEDDINGS_API_KEY,
          timeoutMs: Math.min(config.AI_TIMEOUT_MS, 10_000),
        })
      : null;
}

export const configuredEmbedder = () => configured;

const cache = new LRUCache<string, number[]>({ max: CACHE_SIZE });

export function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

/**
 * Fuses the full-text order of `pool` (best first) with the order by similarity to the question
 * (reciprocal rank fusion). Passages are embedded once (one request for the question and the
 * passages not seen before).
 */
export async function fuseWithVectors<T extends { id: number | string; text: string }>(embedder: Embedder, question: string, pool: T[]): Promise<T[]> {
  const key = (r: T) => `${embedder.model}\u0000${r.id}`;
  const missing = pool.filter((r) => !cache.has(key(r)));
  const [q, ...vectors] = await embedder.embed([question, ...missing.map((r) => r.text)]);
  missing.forEach((r, i) => cache.set(key(r), vectors[i]!));
  const similarity = new Map(pool.map((r) => [r, cosine(q!, cache.get(key(r)) ?? [])]));
  const byVector = [...pool].sort((a, b) => similarity.get(b)! - similarity.get(a)!);
  const fused = new Map(pool.map((r, i) => [r, 1 / (RRF_K + i + 1) + 1 / (RRF_K + byVector.indexOf(r) + 1)]));
  return [...pool].sort((a, b) => fused.get(b)! - fused.get(a)!);
}
