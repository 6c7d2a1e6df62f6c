import t from 'tap';
import { responseCost } from '../../../server/incidents/costs.js';
import { incidentApp } from './helpers.js';

const s = (seconds: number) => seconds * 1000;

t.test('cost rule: the worked example', async (t) => {
  const cost = responseCost(
    [
      { participant: 'A', at: s(100), responseSeconds: 300 },
      { participant: 'B', at: s(200), responseSeconds: 300 },
    ],
    100,
  );
  t.equal(cost.amount, 16.67, '(300 + 300) / 3600 x 100');
  t.equal(cost.hours, 600 / 3600);
});

t.test('cost rule: overlapping activity extends the open window, gaps open new ones', async (t) => {
  const cost = responseCost(
    [
      { participant: 'A', at: s(100), responseSeconds: 300 }, // [100, 400]
      { participant: 'A', at: s(200), responseSeconds: 300 }, // inside: extends to 500
      { participant: 'A', at: s(500), responseSeconds: 300 }, // at the edge: extends to 800
      { participant: 'A', at: s(1000), responseSeconds: 300 }, // after the window: new [1000, 1300]
      { participant: 'B', at: s(150), responseSeconds: 300 }, // B's own window [150, 450]
    ],
    3600,
  );
  const a = cost.participants.find((p) => p.email === 'A')!;
  t.same(
    a.windows.map((w) => [Date.parse(w.start) / 1000, Date.parse(w.end) / 1000]),
    [
      [100, 800],
      [1000, 1300],
    ],
  );
  t.equal(a.hours, 1000 / 3600);
  t.equal(cost.amount, 1300, '(700 + 300 + 300) s at $3600/h');
  // A short response time never pulls a window's end backwards.
  const shorter = responseCost(
    [
      { participant: 'A', at: s(0), responseSeconds: 600 },
      { participant: 'A', at: s(60), responseSeconds: 60 },
    ],
    3600,
  );
  t.equal(shorter.amount, 600);
  t.equal(responseCost([], 100).amount, 0);
});

t.test('incident response cost from tracked activity at the project rate', async (t) => {
  const { api, createIncident, login, drain } = await incidentApp(t);
  // Project: 208000 / 2080 h = $100 an hour.
  const inc = await createIncident();
  const b = await login('b@example.com', { role: 'Member' });
  await api('POST', `/iaos/${inc.id}/join`, undefined, b);
  // Only timeline activity by participants counts; place it at known times.
  const base = Date.parse('2026-02-01T00:00:00Z');
  const at = (sec: number) => new Date(base + sec * 1000).toISOString();
  const full0 = (await api('GET', `/iaos/${inc.id}`)).body;
  // Move the automatic entries far away so the example stays exact.
  for (const e of full0.events) await api('PATCH', `/iaos/${inc.id}/event`, { id: e.id, started_at: at(-100000 - e.id * 10000) });
  const auto = (await api('GET', `/iaos/${inc.id}/costs`)).body;
  await api('POST', `/iaos/${inc.id}/event`, { description: 'A acts', started_at: at(100) });
  await api('POST', `/iaos/${inc.id}/event`, { description: 'B acts', started_at: at(200) }, b);
  const cost = (await api('GET', `/iaos/${inc.id}/costs`)).body;
  t.equal(cost.hourly_rate, 100);
  t.equal(Math.round((cost.hours - auto.hours) * 100 * 100) / 100, 16.67, 'two separate 300 s windows at $100/h');
  const stored = (await api('GET', `/iaos/${inc.id}`)).body.incident_costs;
  t.equal(stored[0].amount, cost.amount, 'stored on the incident');
  // A non-participant's activity is not tracked.
  const outsider = await login('outsider@example.com', { role: 'Admin' });
  await api('POST', `/iaos/${inc.id}/event`, { description: 'outsider', started_at: at(5000) }, outsider);
  t.equal((await api('GET', `/iaos/${inc.id}/costs`)).body.amount, cost.amount);
  // Conversation messages by participants count.
  await drain();
  const msg = await api('POST', `/iaos/${inc.id}/conversation/messages`, { text: 'On it' }, b);
  t.equal(msg.status, 201);
  t.ok((await api('GET', `/iaos/${inc.id}/costs`)).body.amount > cost.amount, 'a message adds a window');
});

t.test("the project's cost model sets the response time per activity", async (t) => {
  const { api, createIncident, projectId } = await incidentApp(t);
  const model = await api('POST', '/cost_models', {
    name: 'Ops model',
    project_id: projectId,
    activities: [{ plugin_event: 'timeline_event', response_time_seconds: 900, enabled: true }],
  });
  t.equal(model.status, 201, JSON.stringify(model.body));
  const inc = await createIncident();
  // The creation's system event stays (system events cannot be deleted); one more, months earlier.
  await api('POST', `/iaos/${inc.id}/event`, { description: 'earlier activity', started_at: '2026-02-01T00:00:00Z' });
  const cost = (await api('GET', `/iaos/${inc.id}/costs`)).body;
  t.equal(cost.cost_model, 'Ops model');
  t.equal(cost.response_seconds.timeline_event, 900);
  t.equal(cost.response_seconds.comment, 300, 'unlisted activities keep the default');
  t.equal(cost.amount, 50, 'two separate 900 s windows at $100/h');
});
