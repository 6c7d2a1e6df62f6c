import t from 'tap';
import { testApp } from '../../helpers.js';

const api = '/api/v1/default';

t.test('a reference goes in as the spec nests it or as its id, and comes out both ways', async (t) => {
  const { request, login } = await testApp(t);
  const token = await login('owner@example.com');
  const service = await request({ method: 'POST', url: `${api}/tag_types`, token, payload: { name: 'Service' } });
  const term = await request({ method: 'POST', url: `${api}/terms`, token, payload: { text: 'latency' } });
  t.equal(term.status, 201, JSON.stringify(term.body));

  const nested = await request({
    method: 'POST',
    url: `${api}/tags`,
    token,
    payload: { name: 'api', tag_type: { id: service.body.id, name: 'ignored', extra: 1 }, terms: [{ id: term.body.id, text: 'latency' }] },
  });
  const flat = await request({ method: 'POST', url: `${api}/tags`, token, payload: { name: 'api2', tag_type_id: service.body.id, terms: [term.body.id] } });
  t.equal(nested.status, 201, JSON.stringify(nested.body));
  t.equal(flat.status, 201);
  const strip = (r: Record<string, unknown>) => ({ ...r, id: 0, name: '', created_at: '', updated_at: '' });
  t.same(strip(nested.body), strip(flat.body), 'the same record either way');
  t.same(nested.body.tag_type, { id: service.body.id, name: 'Service' }, 'the answer nests the reference with its name');
  t.equal(nested.body.tag_type_id, service.body.id, 'beside the id');
  t.same(nested.body.terms, [{ id: term.body.id, text: 'latency' }], 'a list of references answers objects with their names');

  const listed = await request({ method: 'GET', url: `${api}/tags?itemsPerPage=25`, token });
  t.same(
    listed.body.items.map((i: { tag_type: unknown }) => i.tag_type),
    [
      { id: service.body.id, name: 'Service' },
      { id: service.body.id, name: 'Service' },
    ],
    'lists carry it too',
  );

  // The record as answered, sent back with a change, is accepted; the nested object wins when it is what changed.
  const other = await request({ method: 'POST', url: `${api}/tag_types`, token, payload: { name: 'Team' } });
  const back = await request({
    method: 'PUT',
    url: `${api}/tags/${nested.body.id}`,
    token,
    payload: { ...nested.body, description: 'changed', tag_type: { id: other.body.id, name: 'Team' } },
  });
  t.equal(back.status, 200, JSON.stringify(back.body));
  t.equal(back.body.description, 'changed');
  t.same(back.body.tag_type, { id: other.body.id, name: 'Team' });
  // ... and the id wins when it is what changed (a form that leaves the nested object as it was).
  const form = await request({ method: 'PUT', url: `${api}/tags/${nested.body.id}`, token, payload: { ...back.body, tag_type_id: service.body.id } });
  t.same(form.body.tag_type, { id: service.body.id, name: 'Service' });
  const project = (await request({ method: 'POST', url: `${api}/projects`, token, payload: { name: 'Ops' } })).body;
  const placed = await request({ method: 'PUT', url: `${api}/tags/${nested.body.id}`, token, payload: { project: { id: project.id } } });
  t.same(placed.body.project, { id: project.id, name: project.name });
  const cleared = await request({ method: 'PUT', url: `${api}/tags/${nested.body.id}`, token, payload: { project: null } });
  t.equal(cleared.status, 200, JSON.stringify(cleared.body));
  t.equal(cleared.body.project, null);
  t.equal(cleared.body.project_id, null);

  const unknown = await request({ method: 'PUT', url: `${api}/tags/${nested.body.id}`, token, payload: { ...back.body, colour: 'red' } });
  t.equal(unknown.status, 422);
  t.match(unknown.body.detail[0].msg, /colour/, 'a truly unknown field is still refused');
  const notObject = await request({ method: 'POST', url: `${api}/tags`, token, payload: { name: 'x', tag_type: 3 } });
  t.equal(notObject.status, 422);
  t.same(notObject.body.detail[0].loc, ['body', 'tag_type']);
  const foreign = await request({ method: 'POST', url: `${api}/tags`, token, payload: { name: 'x', tag_type: { id: 999999 } } });
  t.equal(foreign.status, 422);
  t.match(foreign.body.detail[0].msg, /Tag type '999999' could not be found/);
});

t.test('every list of references answers objects and takes ids, objects or the _ids field', async (t) => {
  const { request, login } = await testApp(t);
  const token = await login('owner@example.com');
  const post = async (path: string, payload: unknown) => {
    const res = await request({ method: 'POST', url: `${api}${path}`, token, payload: payload as never });
    t.equal(res.status, 201, `${path}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const latency = await post('/terms', { text: 'latency' });
  const errors = await post('/terms', { text: 'errors' });

  // A definition's terms, in the order given, three ways.
  const asIds = await post('/definitions', { text: 'p99 of requests', terms: [errors.id, latency.id] });
  const asObjects = await post('/definitions', { text: 'p95 of requests', terms: [{ id: errors.id }, { id: latency.id, text: 'ignored' }] });
  const asField = await post('/definitions', { text: 'p50 of requests', term_ids: [errors.id, latency.id] });
  const expected = [
    { id: errors.id, text: 'errors' },
    { id: latency.id, text: 'latency' },
  ];
  for (const made of [asIds, asObjects, asField]) t.same(made.terms, expected, `${made.text}: the terms as the spec names them`);
  const listed = await request({ method: 'GET', url: `${api}/definitions?itemsPerPage=25&sortBy=text`, token });
  t.same(
    listed.body.items.map((d: { terms: unknown }) => d.terms),
    [expected, expected, expected],
    'lists carry them too',
  );
  // A term answers the definitions that name it.
  const term = await request({ method: 'GET', url: `${api}/terms/${latency.id}`, token });
  t.same(
    term.body.definitions.map((d: { id: number; text: string }) => d.text),
    ['p99 of requests', 'p95 of requests', 'p50 of requests'],
  );
  t.same(Object.keys(term.body.definitions[0]).sort(), ['id', 'text']);
  // Sent back whole (terms as objects, definitions read-only) with one change.
  const back = await request({ method: 'PUT', url: `${api}/terms/${latency.id}`, token, payload: { ...term.body, discoverable: false } });
  t.equal(back.status, 200, JSON.stringify(back.body));
  const again = await request({ method: 'PUT', url: `${api}/definitions/${asIds.id}`, token, payload: { ...asIds, terms: [...asIds.terms].reverse() } });
  t.equal(again.status, 200, JSON.stringify(again.body));
  t.same(again.body.terms, [...expected].reverse(), 'a reordered list sent back as objects is saved');

  // The same rule everywhere: a notification's search filters.
  const filter = await post('/search/filters', { name: 'Active', expression: { field: 'status', op: '==', value: 'Active' } });
  const notification = await post('/notifications', { name: 'On call', target: 'oncall@example.com', filter_ids: [filter.id] });
  t.same(notification.filters, [{ id: filter.id, name: 'Active' }]);
  const read = await request({ method: 'GET', url: `${api}/search/filters/${filter.id}`, token });
  t.same(read.body.notifications, [{ id: notification.id, name: 'On call' }], 'and the filter answers the notifications that use it');
  const sentBack = await request({ method: 'PUT', url: `${api}/search/filters/${filter.id}`, token, payload: { ...read.body, description: 'on call' } });
  t.equal(sentBack.status, 200, JSON.stringify(sentBack.body));

  // Bad input is a 422 naming the field.
  const mixed = await request({ method: 'POST', url: `${api}/definitions`, token, payload: { text: 'x', terms: [latency.id], term_ids: [errors.id] } });
  t.equal(mixed.status, 422);
  t.same(mixed.body.detail[0].loc, ['body', 'terms']);
  const notList = await request({ method: 'POST', url: `${api}/definitions`, token, payload: { text: 'x', term_ids: latency.id } });
  t.equal(notList.status, 422);
  t.same(notList.body.detail[0].loc, ['body', 'term_ids']);
  const missing = await request({ method: 'POST', url: `${api}/definitions`, token, payload: { text: 'x', terms: [{ id: 999999 }] } });
  t.equal(missing.status, 422, 'an id of no record is refused, however it is written');
});

t.test('filters name a related model and sorts a related field', async (t) => {
  const { request, login } = await testApp(t);
  const token = await login('owner@example.com');
  const a = await request({ method: 'POST', url: `${api}/tag_types`, token, payload: { name: 'Alpha' } });
  const z = await request({ method: 'POST', url: `${api}/tag_types`, token, payload: { name: 'Zulu' } });
  for (const [name, type] of [
    ['one', z],
    ['two', a],
    ['three', z],
  ] as const)
    await request({ method: 'POST', url: `${api}/tags`, token, payload: { name, tag_type_id: type.body.id } });
  const filter = JSON.stringify({ and: [{ model: 'TagType', field: 'name', op: '==', value: 'Zulu' }] });
  const byType = await request({ method: 'GET', url: `${api}/tags?filter=${encodeURIComponent(filter)}`, token });
  t.equal(byType.status, 200, JSON.stringify(byType.body));
  t.same(
    byType.body.items.map((i: { name: string }) => i.name),
    ['one', 'three'],
  );
  const sorted = await request({ method: 'GET', url: `${api}/tags?sortBy=tag_type.name&descending=true&sortBy=name`, token });
  t.equal(sorted.status, 200, JSON.stringify(sorted.body));
  t.same(
    sorted.body.items.map((i: { name: string }) => i.name),
    ['one', 'three', 'two'],
  );
  const bad = await request({ method: 'GET', url: `${api}/tags?sortBy=tag_type.nope`, token });
  t.equal(bad.status, 422);
});

t.test('/api/v1/organizations needs no organization in the path', async (t) => {
  const { request, login } = await testApp(t);
  const token = await login('owner@example.com');
  const mine = await request({ method: 'GET', url: '/api/v1/organizations', token });
  t.equal(mine.status, 200, JSON.stringify(mine.body));
  t.ok(mine.body.items.some((o: { slug: string }) => o.slug === 'default'));
  const made = await request({ method: 'POST', url: '/api/v1/organizations', token, payload: { name: 'Second team', description: 'Ours' } });
  t.equal(made.status, 201, JSON.stringify(made.body));
  const one = await request({ method: 'GET', url: `/api/v1/organizations/${made.body.id}`, token });
  t.equal(one.body.name, 'Second team');
  const listed = await request({ method: 'GET', url: '/api/v1/organizations?itemsPerPage=50', token });
  t.same(listed.body.items.map((o: { slug: string }) => o.slug).sort(), ['default', made.body.slug].sort());
  t.equal((await request({ method: 'GET', url: '/api/v1/organizations' })).status, 401);
  t.equal((await request({ method: 'GET', url: '/api/v1/default/organizations', token })).status, 200, 'the prefixed path still works');
});

t.test('the OpenAPI document shows the nested references in bodies and answers', async (t) => {
  const { request } = await testApp(t);
  const doc = (await request({ method: 'GET', url: '/api/v1/docs/json' })).body;
  const tags = doc.paths['/api/v1/{organization}/tags'];
  const body = tags.post.requestBody.content['application/json'].schema;
  t.ok(body.properties.tag_type && body.properties.tag_type_id, 'the create body takes tag_type and tag_type_id');
  const answer = tags.post.responses['201'].content['application/json'].schema;
  t.same(Object.keys(answer.properties.tag_type.properties).sort(), ['id', 'name'], 'the answer nests the tag type');
  const page = tags.get.responses['200'].content['application/json'].schema;
  t.ok(page.properties.items.items.properties.tag_type, 'list answers too');
  t.ok(page.properties.total);
});

t.test('a project answers its organization as the spec nests it, and a client sending it back is not refused', async (t) => {
  const { request, login } = await testApp(t);
  const token = await login('owner@example.com');
  const org = (await request({ method: 'GET', url: '/api/v1/organizations', token })).body.items.find((o: { slug: string }) => o.slug === 'default');
  const expected = { id: org.id, name: org.name };
  // Dispatch's client puts its stored organization into a new project.
  const made = await request({
    method: 'POST',
    url: `${api}/projects`,
    token,
    payload: { name: 'Ops', organization: { id: org.id, slug: 'default', name: org.name } },
  });
  t.equal(made.status, 201, JSON.stringify(made.body));
  t.same(made.body.organization, expected, 'the created project names its organization');
  t.equal(made.body.organization_id, org.id, 'beside the id');
  t.same((await request({ method: 'GET', url: `${api}/projects/${made.body.id}`, token })).body.organization, expected);
  const lists = [
    (await request({ method: 'GET', url: `${api}/projects`, token })).body.items,
    (await request({ method: 'GET', url: `${api}/projects/user`, token })).body.items,
    (await request({ method: 'GET', url: `${api}/auth/me`, token })).body.projects,
  ];
  for (const items of lists)
    t.same(
      items.map((p: { organization: unknown }) => p.organization),
      [expected, expected],
      'every project list',
    );
  const back = await request({ method: 'PUT', url: `${api}/projects/${made.body.id}`, token, payload: { ...made.body, description: 'On call' } });
  t.equal(back.status, 200, JSON.stringify(back.body));
  t.equal(back.body.description, 'On call', 'sent back whole, the project is saved');
  const elsewhere = await request({ method: 'POST', url: `${api}/projects`, token, payload: { name: 'Moved', organization: { id: 999999 } } });
  t.equal(elsewhere.status, 201);
  t.same(elsewhere.body.organization, expected, 'a project always goes in the organization of the path');
});
