import t from 'tap';
import { incidentApp } from './helpers.js';

/**
 * Join makes a person a participant, a role that carries no status right: a Member who joined cannot
 * mark the incident stable or closed (by its action routes or by editing its status); its commander,
 * also a Member, can, and so can one given the scribe role.
 */
t.test('joining gives no right to change the status; the commander has it', async (t) => {
  const { api, createIncident, login } = await incidentApp(t);
  const commander = await login('cmd@example.com', { role: 'Member' });
  const joiner = await login('joiner@example.com', { role: 'Member' });
  const scribe = await login('scribe@example.com', { role: 'Member' });
  const incident = await createIncident({ commander_email: 'cmd@example.com' });

  t.equal((await api('POST', `/iaos/${incident.id}/join`, undefined, joiner)).status, 200, 'a Member joins');
  const full = (await api('GET', `/iaos/${incident.id}`, undefined, joiner)).body;
  t.ok(JSON.stringify(full).includes('joiner@example.com'), 'and is on the incident');
  for (const [how, call] of [
    ['POST /stable', () => api('POST', `/iaos/${incident.id}/stable`, undefined, joiner)],
    ['POST /closed', () => api('POST', `/iaos/${incident.id}/closed`, undefined, joiner)],
    ['PUT status', () => api('PUT', `/iaos/${incident.id}`, { status: 'Closed' }, joiner)],
  ] as const) {
    const res = await call();
    t.equal(res.status, 403, `the joined Member is refused: ${how}`);
    t.match(res.body.detail[0].msg, /joining as a participant does not give that right/);
  }
  t.equal((await api('GET', `/iaos/${incident.id}`)).body.status, 'Active', 'the status did not change');

  t.equal((await api('POST', `/iaos/${incident.id}/stable`, undefined, commander)).status, 200, 'the commander (a Member) marks it stable');
  t.equal((await api('POST', `/iaos/${incident.id}/roles`, { email: 'scribe@example.com', role: 'scribe' }, commander)).status, 200);
  t.equal((await api('POST', `/iaos/${incident.id}/closed`, undefined, scribe)).status, 200, 'a scribe closes it');
  t.equal((await api('GET', `/iaos/${incident.id}`)).body.status, 'Closed');
});
