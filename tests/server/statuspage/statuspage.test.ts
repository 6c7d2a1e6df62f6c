import t from 'tap';
import { incidentApp } from '../incidents/helpers.js';
import { LOOPBACK_STAND_INS } from '../../helpers.js';
import { statuspageStandIn } from '../../statuspage-standin.js';

t.test('Statuspage: preview, post, follow-ups and resolve with the incident; auto-post; a refusal in words; 429 retried; no second incident', async (t) => {
  const { api, createIncident, drain } = await incidentApp(t, LOOPBACK_STAND_INS);
  const page = await statuspageStandIn(t, { key: 'sp-key', pageId: 'pg1' });
  const instance = await api('POST', '/plugins/instances', {
    plugin_slug: 'atlassian-statuspage',
    title: 'Status page',
    // The optional public page URL left empty, as the form sends it.
    configuration: { api_key: 'sp-key', page_id: 'pg1', api_url: `${page.url}/v1`, page_url: '', component_ids: ['cmp-api'] },
  });
  t.equal(instance.status, 201, 'the instance is created, its empty page URL no address to refuse');

  const incident = await createIncident({ title: 'Checkout errors', description: 'Internal: the db-7 replica is lagging.' });
  await drain();
  t.equal(page.incidents.size, 0, 'nothing is posted without asking (the priority does not auto-post)');
  const preview = await api('GET', `/iaos/${incident.id}/statuspage/preview`);
  t.equal(preview.status, 200);
  t.match(preview.body, { posted: false, name: 'Checkout errors', status: 'investigating', internal_notes: 'Internal: the db-7 replica is lagging.' });
  t.notMatch(preview.body.body, /db-7/, 'the public wording does not carry the internal notes');
  t.same(
    preview.body.components.map((c: any) => [c.name, c.status, c.proposed]),
    [
      ['API', 'operational', 'partial_outage'],
      ['Website', 'operational', 'operational'],
    ],
  );

  // Posting, with a 429 first: the queue waits Retry-After and posts once.
  page.state.limited = 1;
  const post = { name: 'Checkout errors', status: 'investigating', body: 'Some payments fail; we are on it.', components: { 'cmp-api': 'major_outage' } };
  t.equal((await api('POST', `/iaos/${incident.id}/statuspage`, post)).status, 202);
  t.equal((await api('POST', `/iaos/${incident.id}/statuspage`, post)).status, 202, 'a second click');
  await drain();
  t.equal(page.incidents.size, 1, 'one incident on the page, after the 429, whatever the clicks');
  t.equal(page.seen.filter((r) => r.method === 'POST').length, 2, 'the 429 and the post');
  t.equal(page.components[0]!.status, 'major_outage');
  let record = (await api('GET', `/iaos/${incident.id}`)).body;
  t.match(record.statuspage, { weblink: 'https://stspg.io/inc1' }, '`statuspage` holds the link');

  // Stable, then Closed: monitoring, then resolved with the components operational.
  await api('POST', `/iaos/${incident.id}/stable`);
  await drain();
  await api('POST', `/iaos/${incident.id}/closed`);
  await drain();
  t.same(
    page.incidents.get('inc1')!.updates.map((u) => u.status),
    ['investigating', 'monitoring', 'resolved'],
  );
  t.equal(page.components[0]!.status, 'operational');

  // auto_post_to_status_page on the priority posts by itself.
  const priority = await api('POST', '/incident_priorities', { name: 'Public', auto_post_to_status_page: true });
  t.equal(priority.status, 201, 'a priority that auto-posts');
  await createIncident({ title: 'Login outage', incident_priority_id: priority.body.id });
  await drain();
  t.equal(page.incidents.get('inc2')?.name, 'Login outage');

  // A refused key: said in words on the timeline, the incident stands.
  await api('PUT', `/plugins/instances/${instance.body.id}`, { configuration: { api_key: 'wrong', page_id: 'pg1', api_url: `${page.url}/v1` } });
  const third = await createIncident({ title: 'Search slow' });
  await api('POST', `/iaos/${third.id}/statuspage`, { ...post, name: 'Search slow' });
  await drain();
  record = (await api('GET', `/iaos/${third.id}`)).body;
  t.ok(
    record.events.some((e: any) => /Statuspage refused the API key \(401\): Could not authenticate/.test(e.description)),
    'the refusal is said',
  );
});
