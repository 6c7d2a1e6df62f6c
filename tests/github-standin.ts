import { send, standIn, type Owner } from './standin.js';

/**
 * GitHub's GET /repos/{owner}/{repo}/commits: bearer token, `since`, 100 a page with a Link header,
 * an ETag per URL (304 to If-None-Match), and the rate limit's 403 with x-ratelimit-remaining: 0.
 */
export async function githubStandIn(
  t: Owner,
  opts: { token: string; commits: Record<string, { sha: string; date: string; message: string; login: string }[]> },
) {
  const mode = { exhausted: 0, failPage: 0 };
  const s = await standIn(t, (req, res) => {
    if (req.headers.authorization !== `token ${opts.token}` && req.headers.authorization !== `Bearer ${opts.token}`)
      return send(res, 401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' });
    if (mode.exhausted > 0) {
      mode.exhausted--;
      return send(
        res,
        403,
        { message: 'API rate limit exceeded' },
        { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 1) },
      );
    }
    const url = new URL(req.path, s.url);
    const m = /^\/repos\/([^/]+)\/([^/]+)\/commits$/.exec(url.pathname);
    const all = m && opts.commits[`${m[1]}/${m[2]}`];
    if (!all) return send(res, 404, { message: 'Not Found' });
    const since = url.searchParams.get('since');
    const page = Number(url.searchParams.get('page') ?? 1);
    if (page === mode.failPage) return send(res, 502, { message: 'Server Error' });
    const list = all.filter((c) => !since || c.date >= since).sort((a, b) => b.date.localeCompare(a.date));
    const etag = `W/"${list.length}-${list[0]?.sha ?? 'none'}-${page}"`;
    if (req.headers['if-none-match'] === etag) return send(res, 304);
    const slice = list.slice((page - 1) * 100, page * 100);
    const next = new URL(url);
    next.searchParams.set('page', String(page + 1));
    const headers: Record<string, string> = { etag, 'x-ratelimit-remaining': '4999' };
    if (page * 100 < list.length) headers.link = `<${next}>; rel="next"`;
    return send(
      res,
      200,
      slice.map((c) => ({
        sha: c.sha,
        html_url: `https://github.com/${m![1]}/${m![2]}/commit/${c.sha}`,
        commit: { message: c.message, author: { name: c.login, date: c.date } },
        author: { login: c.login },
      })),
      headers,
    );
  });
  return { ...s, mode };
}
