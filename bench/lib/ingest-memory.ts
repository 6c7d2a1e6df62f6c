/**
 * Child process of the ingest suite: one large upload of Markdown, alone in its process, so the
 * resident set it reports belongs to that upload. Prints one JSON line: the RSS before, and the peak
 * while the file is stored and while it is indexed.
 */
import { generateCorpus } from '../corpus/generate.js';
import { freshDatabase, uploader, type BenchDb } from './ingest.js';

/** The highest resident set seen while `fn` runs (sampled every 10 ms). */
async function peakDuring<T>(fn: () => Promise<T>): Promise<{ value: T; peak: number }> {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 10);
  try {
    const value = await fn();
    return { value, peak: Math.max(peak, process.memoryUsage.rss()) };
  } finally {
    clearInterval(timer);
  }
}

const kind = (process.argv[2] ?? 'postgres') as BenchDb;
const megabytes = Number(process.argv[3] ?? 100);
/** 'buffer': the file is in memory before it is stored (a socket upload); 'stream': it arrives in 64 KB pieces (an HTTP upload). */
const mode = (process.argv[4] ?? 'buffer') as 'buffer' | 'stream';
const runbooks = generateCorpus()
  .docs.filter((d) => d.fileName.endsWith('.md'))
  .map((d) => d.content)
  .join('\n\n');
const { database, drop } = await freshDatabase(kind, 'ingest_memory');
try {
  const up = await uploader(database, 'ingest-memory');
  const copies = Math.ceil((megabytes * 1e6) / Buffer.byteLength(`${runbooks}\n\n`));
  let content: Buffer | null = mode === 'buffer' ? Buffer.from(Array.from({ length: copies }, () => runbooks).join('\n\n')) : null;
  const piece = Buffer.from(`${runbooks}\n\n`);
  const bytes = content?.length ?? copies * piece.length;
  // The HTTP body's pieces, made as they are read: only what the store holds counts.
  async function* body() {
    for (let i = 0; i < copies; i++) for (let at = 0; at < piece.length; at += 65536) yield piece.subarray(at, at + 65536);
  }
  global.gc?.();
  const baseline = process.memoryUsage.rss();
  const started = performance.now();
  // Storing the upload, then the indexing job: each phase's peak above the baseline.
  const stored = await peakDuring(() => (content ? up.store('large.md', content) : up.storeStream('large.md', body())));
  content = null; // the upload's bytes are in the database from here on
  global.gc?.();
  const indexed = await peakDuring(() => up.index(stored.value));
  const seconds = (performance.now() - started) / 1000;
  console.log(JSON.stringify({ mode, bytes, baseline, storePeak: stored.peak, indexPeak: indexed.peak, seconds, ...indexed.value }));
} finally {
  await drop();
}
