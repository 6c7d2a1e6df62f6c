import t from 'tap';
import { testApp } from '../../helpers.js';

const api = '/api/v1/default';

t.test("people go in as the spec's {email} objects or as e-mails, and come out both ways", async (t) => {
  const { request, login } = await testApp(t);
  const token = await login('owner@example.com');
  // As Dispatch's client writes a task: owner an individual, assignees participants.
  const nested = await request({
    method: 'POST',
    url: `${api}/tasks`,
    token,
    payload: {
      description: 'Rotate the keys',
      owner: { email: 'ann@example.com', name: 'Ann', id: 4 },
      assignees: [{ individual: { email: 'bob@example.com' } }, { email: 'cy@example.com' }],
    },
  });
  t.equal(nested.status, 201, JSON.stringify(nested.body));
  const flat = await request({
    method: 'POST',
    url: `${api}/tasks`,
    token,
    payload: { description: 'Rotate the keys', owner_email: 'ann@example.com', assignees: ['bob@example.com', 'cy@example.com'] },
  });
  const strip = (r: Record<string, unknown>) => ({ ...r, id: 0, created_at: '', updated_at: '' });
  t.same(strip(nested.body), strip(flat.body), 'the same task either way');
  t.same(nested.body.owner, { email: 'ann@example.com' }, 'the owner as the spec names it');
  t.equal(nested.body.owner_email, 'ann@example.com', 'beside the e-mail');
  t.same(nested.body.creator, { email: 'owner@example.com' }, 'the creator too');
  t.same(nested.body.assignees, ['bob@example.com', 'cy@example.com']);

  const got = await request({ method: 'GET', url: `${api}/tasks/${nested.body.id}`, token });
  t.same(got.body.owner, { email: 'ann@example.com' });
  const listed = await request({ method: 'GET', url: `${api}/tasks?itemsPerPage=25`, token });
  t.same(
    listed.body.items.map((i: { owner: unknown; creator: unknown }) => [i.owner, i.creator]),
    [
      [{ email: 'ann@example.com' }, { email: 'owner@example.com' }],
      [{ email: 'ann@example.com' }, { email: 'owner@example.com' }],
    ],
    'lists carry them',
  );

  // Sent back whole with a new owner (creator read-only, ignored); then the owner removed.
  const back = await request({ method: 'PUT', url: `${api}/tasks/${nested.body.id}`, token, payload: { ...got.body, owner: { email: 'dee@example.com' } } });
  t.equal(back.status, 200, JSON.stringify(back.body));
  t.equal(back.body.owner_email, 'dee@example.com', 'the changed nested owner stands');
  t.same(back.body.creator, { email: 'owner@example.com' }, 'the creator does not change');
  const cleared = await request({ method: 'PUT', url: `${api}/tasks/${nested.body.id}`, token, payload: { owner: null } });
  t.equal(cleared.body.owner, null);
  t.equal(cleared.body.owner_email, null);

  const noEmail = await request({ method: 'POST', url: `${api}/tasks`, token, payload: { description: 'x', owner: { name: 'Ann' } } });
  t.equal(noEmail.status, 422);
  t.same(noEmail.body.detail[0].loc, ['body', 'owner']);
  t.match(noEmail.body.detail[0].msg, /'owner' must be an e-mail address or an object with an 'email'/);
  const badEmail = await request({ method: 'POST', url: `${api}/tasks`, token, payload: { description: 'x', assignees: [{ email: 'not-an-address' }] } });
  t.equal(badEmail.status, 422, 'the e-mail is still checked');
  t.same(badEmail.body.detail[0].loc, ['body', 'assignees', 0]);
  const creator = await request({ method: 'POST', url: `${api}/tasks`, token, payload: { description: 'x', creator: { email: 'eve@example.com' } } });
  t.equal(creator.status, 422, 'the creator is the server’s to set');
});

t.test("an incident's commander and reporter and a case's assignee nest the same way", async (t) => {
  const { request, login } = await testApp(t);
  const token = await login('owner@example.com');
  const incident = await request({
    method: 'POST',
    url: `${api}/iaos`,
    token,
    payload: { title: 'Checkout is slow', commander: { email: 'ann@example.com' } },
  });
  t.equal(incident.status, 201, JSON.stringify(incident.body));
  t.equal(incident.body.commander_email, 'ann@example.com');
  t.same(incident.body.commander, { email: 'ann@example.com' });
  t.same(incident.body.reporter, { email: 'owner@example.com' });
  const full = await request({ method: 'GET', url: `${api}/iaos/${incident.body.id}`, token });
  t.same(full.body.commander, { email: 'ann@example.com' }, 'the full incident too');
  const listed = await request({ method: 'GET', url: `${api}/iaos`, token });
  t.same(listed.body.items[0].commander, { email: 'ann@example.com' }, 'and the list');

  const kase = await request({ method: 'POST', url: `${api}/cases`, token, payload: { title: 'Odd login', assignee: { email: 'bob@example.com' } } });
  t.equal(kase.status, 201, JSON.stringify(kase.body));
  t.equal(kase.body.assignee_email, 'bob@example.com');
  const caseRead = await request({ method: 'GET', url: `${api}/cases/${kase.body.id}`, token });
  t.same(caseRead.body.assignee, { email: 'bob@example.com' });
});

t.test('the OpenAPI document shows people as {email} objects', async (t) => {
  const { request } = await testApp(t);
  const doc = (await request({ method: 'GET', url: '/api/v1/docs/json' })).body;
  const tasks = doc.paths['/api/v1/{organization}/tasks'];
  const body = tasks.post.requestBody.content['application/json'].schema;
  t.ok(body.properties.owner && body.properties.owner_email, 'the create body takes owner and owner_email');
  const answer = tasks.post.responses['201'].content['application/json'].schema;
  t.same(Object.keys(answer.properties.creator.properties), ['email']);
});
