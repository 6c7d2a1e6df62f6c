import t from 'tap';
import { incidentApp } from './helpers.js';

const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** Any string that looks like a date and time, whatever its format. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/;

/** Every date-time string in a response body, with where it sits (`events.0.started_at`). */
function dateTimes(value: unknown, path = ''): [string, string][] {
  if (typeof value === 'string') return DATE_TIME.test(value) ? [[path, value]] : [];
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => dateTimes(v, path ? `${path}.${k}` : k));
  return [];
}

t.test('timestamps: one ISO 8601 format with Z in the list and the single GET', async (t) => {
  const { api, createIncident, drain, projectId } = await incidentApp(t);
  const incident = await createIncident({ reported_at: '2024-03-01T08:30:00.250Z' });
  await api('POST', `/iaos/${incident.id}/join`);
  await api('POST', `/iaos/${incident.id}/event`, { description: 'Failover started', started_at: '2024-03-01T09:00:00Z' });
  await api('POST', '/tasks', { description: 'Check replicas', incident_id: incident.id, resolve_by: '2024-03-02T00:00:00Z' });
  await api('POST', `/iaos/${incident.id}/stable`);
  await drain();

  const single = (await api('GET', `/iaos/${incident.id}`)).body;
  const listed = (await api('GET', '/iaos')).body.items.find((i: any) => i.id === incident.id);
  for (const key of ['reported_at', 'stable_at', 'created_at', 'updated_at']) {
    t.match(single[key], ISO_Z, `single ${key}`);
    t.equal(single[key], listed[key], `${key} is the same string in the list and the single GET`);
  }
  t.equal(single.reported_at, '2024-03-01T08:30:00.250Z');
  const nested = dateTimes(single);
  t.ok(
    nested.some(([p]) => p.startsWith('events.')) &&
      nested.some(([p]) => /^participants\.\d+\.roles\./.test(p)) &&
      nested.some(([p]) => p.startsWith('tasks.')),
    'events, roles and tasks carry timestamps',
  );
  t.same(
    nested.filter(([, v]) => !ISO_Z.test(v)),
    [],
    'every timestamp in the full record, nested parts included, ends in Z',
  );
  t.equal(single.events.find((e: any) => e.description === 'Failover started').started_at, '2024-03-01T09:00:00.000Z');
  t.equal(single.tasks[0].resolve_by, '2024-03-02T00:00:00.000Z');

  const kase = await api('POST', '/cases', { title: 'Phishing', project_id: projectId });
  await drain();
  const caseSingle = (await api('GET', `/cases/${kase.body.id}`)).body;
  const caseListed = (await api('GET', '/cases')).body.items.find((c: any) => c.id === kase.body.id);
  t.equal(caseSingle.reported_at, caseListed.reported_at, 'a case too');
  t.same(
    dateTimes(caseSingle).filter(([, v]) => !ISO_Z.test(v)),
    [],
    "every timestamp in the case's full record ends in Z",
  );
});
