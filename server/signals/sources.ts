import { LRUCache } from 'lru-cache';

/** What ingestion needs of a signal definition, resolved from an ingest key. */
export interface Source {
  id: number;
  organization_id: number;
  project_id: number;
  hmac_secret: string | null;
  signature_header: string | null;
  timestamp_header: string | null;
  rate_limit_per_minute: number | null;
}

/** How long a process keeps a source it resolved by key, at most. */
export const SOURCE_TTL_MS = 2_000;
/** Migration 0038's channel: a definition changed, so cached sources may be stale. */
export const SOURCES_CHANNEL = 'firewatch_signal_sources';
/**
 * Sources by key hash: without it every delivery waits for a lookup before its insert. A change to a
 * definition made here forgets them at once (forgetSources); migration 0038 announces every change at
 * commit, so every process forgets them then; the TTL bounds a lookup that raced the announcement.
 */
export const knownSources = new LRUCache<string, Source>({ max: 10_000, ttl: SOURCE_TTL_MS });
export const forgetSources = () => knownSources.clear();
