import t from 'tap';
import { incidentApp } from '../incidents/helpers.js';

t.test('conference link plugin: the project instance gives each new incident its link', async (t) => {
  const { api, createIncident, drain, projectId } = await incidentApp(t);
  const catalog = (await api('GET', '/plugins')).body.items.find((p: any) => p.slug === 'conference-link');
  t.equal(catalog.type, 'conference');
  t.equal(
    catalog.configuration_schema.properties.url_template.default,
    'https://meet.jit.si/firewatch-{organization}-{name}',
    'the schema starts from the old template',
  );

  // With no instance the server's template (the default instance) is used, as before.
  const before = await createIncident({ title: 'No plugin yet' });
  await drain();
  t.equal((await api('GET', `/iaos/${before.id}`)).body.conference_url, 'https://meet.jit.si/firewatch-default-IAO-1');

  const other = await api('POST', '/projects', { name: 'Payments' });
  const orgWide = await api('POST', '/plugins/instances', {
    plugin_slug: 'conference-link',
    title: 'Everyone',
    configuration: { url_template: 'https://zoom.example.com/j/{organization}/{name}' },
  });
  t.equal(orgWide.status, 201);
  t.match(orgWide.body.plugin, { slug: 'conference-link', type: 'conference', title: 'Conference link' }, 'spec §3: the instance answers its plugin');
  t.same(orgWide.body.configuration_schema, catalog.configuration_schema, 'and its configuration schema');
  const sentBack = await api('PUT', `/plugins/instances/${orgWide.body.id}`, orgWide.body);
  t.equal(sentBack.status, 200, `a record sent back as answered is accepted: ${JSON.stringify(sentBack.body)}`);
  const ops = await api('POST', '/plugins/instances', {
    plugin_slug: 'conference-link',
    title: 'Ops bridge',
    project_id: projectId,
    configuration: { url_template: 'https://meet.example.com/ops-{name}' },
  });
  t.equal(ops.status, 201);

  const inOps = await createIncident({ title: 'Ops outage' });
  const inPayments = await createIncident({ title: 'Payments outage', project_id: other.body.id });
  await drain();
  const opsIncident = (await api('GET', `/iaos/${inOps.id}`)).body;
  t.equal(opsIncident.conference_url, 'https://meet.example.com/ops-IAO-2', "the project's own instance wins");
  t.equal(
    (await api('GET', `/iaos/${inPayments.id}`)).body.conference_url,
    'https://zoom.example.com/j/default/IAO-3',
    'a project without one uses the instance without a project',
  );
  t.ok(
    opsIncident.events.some((e: any) => e.description === 'Conversation and conference created (https://meet.example.com/ops-IAO-2)'),
    'the timeline names the link',
  );
  const events = (
    await api('GET', `/plugins/plugin_events?filter=${encodeURIComponent(JSON.stringify([{ field: 'incident_id', op: '==', value: inOps.id }]))}`)
  ).body.items;
  t.same(
    events.map((e: any) => [e.name, e.plugin_instance_id, e.description]),
    [['Conference created', ops.body.id, 'Ops bridge: https://meet.example.com/ops-IAO-2']],
    'the plugin reports what it did',
  );

  // Disabled instances are not used; a bad template is refused in the {"detail": [...]} shape.
  t.equal((await api('PUT', `/plugins/instances/${ops.body.id}`, { enabled: false })).status, 200);
  const later = await createIncident({ title: 'After disabling' });
  await drain();
  t.equal((await api('GET', `/iaos/${later.id}`)).body.conference_url, 'https://zoom.example.com/j/default/IAO-4');
  const bad = await api('POST', '/plugins/instances', { plugin_slug: 'conference-link', title: 'Bad', configuration: { url_template: 'ftp://x/{name}' } });
  t.equal(bad.status, 422);
  t.same(bad.body.detail[0].loc, ['body', 'configuration', 'url_template']);
  const missing = await api('POST', '/plugins/instances', { plugin_slug: 'conference-link', title: 'Empty', configuration: {} });
  t.equal(missing.status, 422);
  t.same(missing.body.detail[0].loc, ['body', 'configuration', 'url_template']);
});
