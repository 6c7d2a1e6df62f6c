import t from 'tap';
import { incidentApp } from '../incidents/helpers.js';
import { LOOPBACK_STAND_INS } from '../../helpers.js';
import { googleStandIn, zoomStandIn } from '../../meetings-standin.js';

t.test('Zoom and Google Meet: real meetings for incidents, the postmortem review with its participants, once; refusals in words', async (t) => {
  const { api, createIncident, drain, projectId } = await incidentApp(t, LOOPBACK_STAND_INS);
  const zoom = await zoomStandIn(t, { accountId: 'acct', clientId: 'cid', secret: 'csecret' });
  const google = await googleStandIn(t);

  // With no plugin, the link template stays the default.
  const plain = await createIncident({ title: 'No meeting plugin' });
  await drain();
  t.match((await api('GET', `/iaos/${plain.id}`)).body.conference_url, /^https:\/\/meet\.jit\.si\//);

  const zoomInstance = await api('POST', '/plugins/instances', {
    plugin_slug: 'zoom-meeting',
    title: 'Zoom',
    configuration: { account_id: 'acct', client_id: 'cid', client_secret: 'csecret', oauth_url: `${zoom.url}/oauth/token`, api_url: `${zoom.url}/v2` },
  });
  t.equal(zoomInstance.status, 201, 'the Zoom instance is created');
  zoom.state.limited = 1;
  const bridged = await createIncident({ title: 'Checkout errors' });
  await drain();
  t.equal((await api('GET', `/iaos/${bridged.id}`)).body.conference_url, 'https://zoom.us/j/85000001', 'a real Zoom meeting, after a 429 waited out');
  t.equal(zoom.meetings[0].type, 2);

  // Google Meet for the project: the project's instance wins; the review is scheduled once stable.
  const meet = await api('POST', '/plugins/instances', {
    plugin_slug: 'google-meet',
    title: 'Meet',
    project_id: projectId,
    configuration: {
      client_email: 'fw@proj.iam.gserviceaccount.com',
      private_key: google.privateKey,
      organizer_email: 'ic@example.com',
      token_url: `${google.url}/token`,
      api_url: `${google.url}/calendar/v3`,
    },
  });
  t.equal(meet.status, 201, 'the Meet instance is created');
  const priority = await api('POST', '/incident_priorities', { name: 'Review', auto_schedule_postmortem_meeting: true });
  const reviewed = await createIncident({ title: 'Login outage', incident_priority_id: priority.body.id });
  await api('POST', `/iaos/${reviewed.id}/roles`, { email: 'sre@example.com', role: 'participant' });
  await drain();
  t.equal((await api('GET', `/iaos/${reviewed.id}`)).body.conference_url, 'https://meet.google.com/abc-1');
  await api('POST', `/iaos/${reviewed.id}/stable`);
  await drain();
  await api('POST', `/iaos/${reviewed.id}/closed`);
  await drain();
  const reviews = google.events.filter((e) => /^Postmortem review/.test(e.summary));
  t.equal(reviews.length, 1, 'one review, though stable and closed both passed');
  t.same(reviews[0].attendees.map((a: any) => a.email).sort(), ['commander@example.com', 'sre@example.com']);
  const record = (await api('GET', `/iaos/${reviewed.id}`)).body;
  t.ok(
    record.resources.some((r: any) => r.resource_type === 'postmortem-meeting' && r.weblink === 'https://meet.google.com/abc-2'),
    'the review is on the incident',
  );

  // A refused Zoom secret: the incident keeps the template link; the refusal is said in words.
  await api('PUT', `/plugins/instances/${zoomInstance.body.id}`, {
    configuration: { account_id: 'acct', client_id: 'cid', client_secret: 'wrong', oauth_url: `${zoom.url}/oauth/token`, api_url: `${zoom.url}/v2` },
  });
  const other = await api('POST', '/projects', { name: 'Elsewhere' });
  const refused = await createIncident({ title: 'Refused', project_id: other.body.id });
  await drain();
  t.match((await api('GET', `/iaos/${refused.id}`)).body.conference_url, /^https:\/\/meet\.jit\.si\//);
  const events = (
    await api('GET', `/plugins/plugin_events?filter=${encodeURIComponent(JSON.stringify([{ field: 'incident_id', op: '==', value: refused.id }]))}`)
  ).body.items;
  t.match(events[0].description, /Zoom refused the credentials \(400\): invalid_client/);
});
