import { useEffect, useState } from 'react';
import { api } from '../core/http.js';

export interface SearchResult {
  type: string;
  id: string;
  title: string;
  /** The screen that opens it, under the organization (`/iaos/IAO-42/view`). */
  link: string;
  /** The passage, matching words between «». */
  headline: string;
  updated_at: string;
  exact: boolean;
}
export interface SearchAnswer {
  query: string;
  page: number;
  items_per_page: number;
  total: number;
  total_capped: boolean;
  groups: { type: string; label: string; count: number }[];
  results: SearchResult[];
}

/** Spec §9: results as you type, once typing pauses this long. */
export const DEBOUNCE_MS = 250;

/** GET /search for what was typed, after a pause; the answer to an older text never replaces a newer one. */
export function useSearch(q: string, opts: { type?: string; page?: number; debounce?: number } = {}) {
  const { type, page = 1, debounce = DEBOUNCE_MS } = opts;
  const [answer, setAnswer] = useState<SearchAnswer | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  useEffect(() => {
    const text = q.trim();
    if (!text) {
      setAnswer(null);
      setError(null);
      return;
    }
    let current = true;
    const timer = setTimeout(() => {
      setLoading(true);
      const params = new URLSearchParams({ q: text, page: String(page) });
      if (type) params.set('type', type);
      api<SearchAnswer>(`/search?${params}`)
        .then((a) => current && (setAnswer(a), setError(null)))
        .catch((e: Error) => current && setError(e.message))
        .finally(() => current && setLoading(false));
    }, debounce);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [q, type, page, debounce]);
  return { answer, error, loading };
}
