import { RateLimited, retryAfterSeconds } from '../core/http/outbound.js';
import { ServiceRefused } from '../plugins/outside.js';
import type { LoadedPlugin } from '../plugins/registry.js';
import type { CommitPage, Repository } from './capabilities.js';
import { commitsFetch } from './http.js';

interface GitHubFailure {
  status?: number;
  message?: string;
  response?: { headers?: Record<string, string | undefined>; data?: { message?: string } };
}

/** GitHub's refusal in words; a rate limit (429, or 403 with no requests remaining) becomes RateLimited. */
export function githubProblem(err: unknown, repo: Repository): Error {
  const e = err as GitHubFailure;
  if (!e?.status) return err instanceof Error ? err : new Error(String(err));
  const headers = e.response?.headers ?? {};
  const said = e.response?.data?.message ?? e.message ?? '';
  if (e.status === 429 || (e.status === 403 && (headers['x-ratelimit-remaining'] === '0' || headers['retry-after'])))
    return new RateLimited(
      'GitHub',
      retryAfterSeconds((n) => headers[n]),
    );
  const where = `${repo.owner}/${repo.name}`;
  if (e.status === 401) return new ServiceRefused(`GitHub refused the token (401): ${said}. Check it in the plugin settings.`, 401);
  if (e.status === 404 || e.status === 403)
    return new ServiceRefused(
      `GitHub does not show ${where} to this token (${e.status}): ${said}. The token needs read access to its contents (fine-grained: Contents read; classic: repo for private repositories).`,
      e.status,
    );
  if (e.status === 409) return new ServiceRefused(`${where} is empty (409): ${said}`, 409);
  return new ServiceRefused(`GitHub answered ${e.status} for ${where}: ${said}`, e.status);
}

// Loaded on first use: a server that syncs no GitHub repository never needs Octokit.
let octokitModule: Promise<typeof import('@octokit/rest')> | undefined;

const nextOf = (link: string | undefined) => /<([^>]+)>;\s*rel="next"/.exec(link ?? '')?.[1] ?? null;

/** GET /repos/{owner}/{repo}/commits?since=…, one page at a time by the Link header, the first with If-None-Match. */
export async function commitPage(
  plugin: LoadedPlugin,
  repo: Repository,
  from: { since: string; etag: string | null; next: string | null },
): Promise<CommitPage> {
  const { Octokit } = await (octokitModule ??= import('@octokit/rest'));
  const octokit = new Octokit({
    auth: String(plugin.config.token),
    baseUrl: String(plugin.config.api_url ?? 'https://api.github.com').replace(/\/+$/, ''),
    request: { fetch: commitsFetch(plugin.outbound) },
    userAgent: 'Firewatch',
  });
  const branch = repo.branch ?? (plugin.config.branch as string | undefined);
  try {
    const res = from.next
      ? await octokit.request(`GET ${from.next}`)
      : await octokit.request('GET /repos/{owner}/{repo}/commits', {
          owner: repo.owner,
          repo: repo.name,
          since: from.since,
          per_page: 100,
          ...(branch ? { sha: branch } : {}),
          headers: { 'x-github-api-version': '2022-11-28', ...(from.etag ? { 'if-none-match': from.etag } : {}) },
        });
    const items = res.data as { sha: string; commit: { message?: string; author?: { name?: string; date?: string } }; author?: { login?: string } | null }[];
    return {
      commits: items.map((c) => ({
        commit_id: c.sha,
        commit_message: c.commit.message ?? null,
        commit_author: c.author?.login ?? c.commit.author?.name ?? null,
        commit_date: c.commit.author?.date ?? null,
      })),
      next: nextOf(res.headers.link),
      etag: from.next ? from.etag : (res.headers.etag ?? null),
      not_modified: false,
    };
  } catch (err) {
    if ((err as GitHubFailure).status === 304) return { commits: [], next: null, etag: from.etag, not_modified: true };
    throw githubProblem(err, repo);
  }
}
