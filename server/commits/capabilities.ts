import type { LoadedPlugin } from '../plugins/registry.js';

export interface Repository {
  url: string;
  owner: string;
  name: string;
  branch?: string;
}
export interface FetchedCommit {
  commit_id: string;
  commit_message: string | null;
  commit_author: string | null;
  commit_date: string | null;
}
/** One page of a repository's commits since a time; `next` is the Link header's next page. */
export interface CommitPage {
  commits: FetchedCommit[];
  next: string | null;
  /** The first page's ETag; `not_modified` when the service answered 304 to it. */
  etag: string | null;
  not_modified: boolean;
}

declare module '../plugins/registry.js' {
  interface Capabilities {
    /** A page of commits: the first (since, with the stored ETag) or the one `next` names. */
    sync_commits: (plugin: LoadedPlugin, repo: Repository, from: { since: string; etag: string | null; next: string | null }) => Promise<CommitPage>;
  }
}

/** owner/name of a GitHub URL (https://github.com/o/r, with or without .git), or null. */
export function parseRepository(url: string): Repository | null {
  const m = /^https?:\/\/[^/]+\/([^/\s]+)\/([^/\s#?]+?)(?:\.git)?\/?(?:tree\/([^\s#?]+))?$/.exec(url.trim());
  return m ? { url: url.trim(), owner: m[1]!, name: m[2]!, ...(m[3] ? { branch: m[3] } : {}) } : null;
}
