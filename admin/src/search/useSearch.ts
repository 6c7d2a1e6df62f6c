import { useEffect, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useFirewatchData } from '../core/queries.js';

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
  const dataProvider = useFirewatchData();
  const text = q.trim();
  // The text once typing paused; each text has its own query, so an older answer never shows for a newer one.
  const [asked, setAsked] = useState(text);
  useEffect(() => {
    const timer = setTimeout(() => setAsked(text), debounce);
    return () => clearTimeout(timer);
  }, [text, debounce]);
  const query = useQuery({
    queryKey: ['search', 'view', asked, type ?? '', page],
    queryFn: async ({ signal }) =>
      (await dataProvider.view<SearchAnswer>('search', { query: { q: asked, page: String(page), ...(type ? { type } : {}) }, signal })).data,
    enabled: !!text && !!asked,
    // The previous results stay on screen while the next ones load.
    placeholderData: keepPreviousData,
    // One ask per text, as typed: a refusal shows at once and a window focus does not search again.
    retry: false,
    refetchOnWindowFocus: false,
  });
  if (!text) return { answer: null, error: null, loading: false };
  return { answer: query.data ?? null, error: query.error?.message ?? null, loading: query.isFetching };
}
