import t from 'tap';
import { incidentApp } from '../incidents/helpers.js';
import { LOOPBACK_STAND_INS } from '../../helpers.js';
import { githubStandIn } from '../../github-standin.js';

const MIN = 60_000;

t.test('GitHub commit sync: Link paging, ETags, sync_completed true to what happened, rate limit waited out, suspects', async (t) => {
  const { api, createIncident, drain } = await incidentApp(t, LOOPBACK_STAND_INS);
  const now = Date.now();
  const shop = Array.from({ length: 150 }, (_, i) => ({
    sha: `s${String(i).padStart(3, '0')}`,
    date: new Date(now - (10 + 20 * i) * MIN).toISOString(),
    message: `change ${i}`,
    login: i % 2 ? 'ann' : 'ben',
  }));
  const gh = await githubStandIn(t, { token: 'ghp-1', commits: { 'acme/shop': shop } });
  const created = await api('POST', '/plugins/instances', {
    plugin_slug: 'github-commits',
    title: 'GitHub',
    configuration: { token: 'ghp-1', api_url: gh.url, repo_urls: ['https://github.com/acme/shop'], lookback_days: 5 },
  });
  t.equal(created.status, 201, 'the instance is created');
  const listed = async () => (await api('GET', '/commits?itemsPerPage=200')).body.items as any[];

  // The second page fails: the first page's commits are kept, but not marked complete.
  gh.mode.failPage = 2;
  t.equal((await api('POST', '/commits/sync', {})).status, 202);
  await drain();
  let rows = await listed();
  t.equal(rows.length, 100, 'the first page is stored');
  t.ok(
    rows.every((c) => c.sync_completed === false),
    'none is marked complete while a page is missing',
  );
  t.match((await api('GET', '/commits/syncs')).body.items[0], { completed_at: null, error: /GitHub answered 502/ });

  // Then the whole sync: both pages (Link), all complete.
  gh.mode.failPage = 0;
  await api('POST', '/commits/sync', {});
  await drain();
  rows = await listed();
  t.equal(rows.length, 150);
  t.ok(
    rows.every((c) => c.sync_completed === true && c.sync_completed_at),
    'all complete once the last page is stored',
  );
  t.ok(
    gh.seen.some((r) => /[?&]page=2/.test(r.path)),
    'the Link header was followed',
  );

  // Syncing the same window again is a 304 (no rate limit spent).
  await api('POST', '/commits/sync', {});
  await drain();
  await api('POST', '/commits/sync', {});
  await drain();
  t.equal(gh.seen.at(-1)!.headers['if-none-match'] !== undefined, true, 'the stored ETag is sent');
  t.equal((await listed()).length, 150, 'nothing doubled');

  // The rate limit (403, x-ratelimit-remaining: 0) is waited out until its reset, then synced.
  gh.mode.exhausted = 1;
  const before = gh.seen.length;
  await api('POST', '/commits/sync', {});
  await drain();
  t.ok(gh.seen.length >= before + 2, 'asked again after the reset');
  t.match((await api('GET', '/commits/syncs')).body.items[0], { error: null });

  // Suspects: the commits of the last hours before the incident, newest first.
  const incident = await createIncident({ title: 'Cart broken' });
  const suspects = await api('GET', `/iaos/${incident.id}/suspect-commits?hours=1`);
  t.equal(suspects.status, 200);
  t.same(
    suspects.body.items.map((c: any) => c.commit_id),
    ['s000', 's001', 's002'],
    'the three commits of the hour before, newest first',
  );
  t.equal(suspects.body.items[0].minutes_before >= 10, true);
});
