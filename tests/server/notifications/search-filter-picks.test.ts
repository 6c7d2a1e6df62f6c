import t from 'tap';
import { testApp } from '../../helpers.js';

const api = '/api/v1/default';

t.test("a search filter is made from the dialog's picks, and answers them back", async (t) => {
  const { request, login } = await testApp(t);
  const token = await login('owner@example.com');
  const types = (await request({ method: 'GET', url: `${api}/incident_types?itemsPerPage=50`, token })).body.items as { id: number; name: string }[];
  const outage = types.find((x) => x.name === 'Outage')!;
  const security = types.find((x) => x.name === 'Security')!;
  const picks = { incident_type: [{ id: outage.id, name: 'Outage' }, { id: security.id }], status: ['Active'] };
  const made = await request({ method: 'POST', url: `${api}/search/filters`, token, payload: { name: 'Live outages', filters: picks } });
  t.equal(made.status, 201, JSON.stringify(made.body));
  t.same(
    made.body.expression,
    [
      {
        and: [
          {
            or: [
              { model: 'IncidentType', field: 'id', op: '==', value: outage.id },
              { model: 'IncidentType', field: 'id', op: '==', value: security.id },
            ],
          },
          { or: [{ field: 'status', op: '==', value: 'Active' }] },
        ],
      },
    ],
    'any of a field’s picks, and every field',
  );
  t.same(made.body.filters, { status: ['Active'], incident_type: [{ id: outage.id }, { id: security.id }] }, 'the picks come back');
  const listed = await request({ method: 'GET', url: `${api}/search/filters`, token });
  t.same(listed.body.items[0].filters, made.body.filters, 'in lists too');

  // The expression picks what a list filtered by it shows.
  for (const [title, type] of [
    ['Checkout down', outage],
    ['Phishing', security],
    ['Slow report', types.find((x) => x.name === 'Data issue')!],
  ] as const)
    t.equal((await request({ method: 'POST', url: `${api}/iaos`, token, payload: { title, incident_type_id: type.id } })).status, 201);
  const matched = await request({ method: 'GET', url: `${api}/iaos?filter=${encodeURIComponent(JSON.stringify(made.body.expression))}`, token });
  t.same(matched.body.items.map((i: { title: string }) => i.title).sort(), ['Checkout down', 'Phishing']);

  // Changed through new picks; an expression picks cannot say answers no picks.
  const changed = await request({ method: 'PUT', url: `${api}/search/filters/${made.body.id}`, token, payload: { filters: { status: ['Stable', 'Closed'] } } });
  t.equal(changed.status, 200, JSON.stringify(changed.body));
  t.same(changed.body.filters, { status: ['Stable', 'Closed'] });
  const raw = await request({
    method: 'PUT',
    url: `${api}/search/filters/${made.body.id}`,
    token,
    payload: { expression: { and: [{ field: 'reported_at', op: '>=', value: '2026-01-01T00:00:00Z' }] } },
  });
  t.equal(raw.status, 200, JSON.stringify(raw.body));
  t.equal(raw.body.filters, null);

  const neither = await request({ method: 'POST', url: `${api}/search/filters`, token, payload: { name: 'Empty' } });
  t.equal(neither.status, 422);
  t.same(neither.body.detail[0].loc, ['body', 'expression']);
  const badKey = await request({ method: 'POST', url: `${api}/search/filters`, token, payload: { name: 'Bad', filters: { colour: ['red'] } } });
  t.equal(badKey.status, 422, 'a pick on a field the subject lacks is refused');
  t.match(badKey.body.detail[0].msg, /colour/);
});

t.test("the editor's preview takes the picks and answers the expression they make, as saving would", async (t) => {
  const { request, login } = await testApp(t);
  const token = await login('owner@example.com');
  const types = (await request({ method: 'GET', url: `${api}/incident_types?itemsPerPage=50`, token })).body.items as { id: number; name: string }[];
  const outage = types.find((x) => x.name === 'Outage')!;
  const security = types.find((x) => x.name === 'Security')!;
  for (const [title, type] of [
    ['Checkout down', outage],
    ['Phishing', security],
  ] as const)
    t.equal((await request({ method: 'POST', url: `${api}/iaos`, token, payload: { title, incident_type_id: type.id } })).status, 201);
  const filters = { incident_type: [{ id: outage.id }], status: ['Active'] };
  const preview = await request({ method: 'POST', url: `${api}/search/filters/preview`, token, payload: { subject: 'incident', filters } });
  t.equal(preview.status, 200, JSON.stringify(preview.body));
  t.same(
    preview.body.items.map((i: { title: string }) => i.title),
    ['Checkout down'],
  );
  const saved = await request({ method: 'POST', url: `${api}/search/filters`, token, payload: { name: 'Outages', filters } });
  t.same(preview.body.expression, saved.body.expression, 'the expression saving the picks makes');

  const sent = await request({ method: 'POST', url: `${api}/search/filters/preview`, token, payload: { expression: saved.body.expression } });
  t.same([sent.body.total, sent.body.expression], [1, saved.body.expression], 'an expression sent is answered as sent');
  const neither = await request({ method: 'POST', url: `${api}/search/filters/preview`, token, payload: { subject: 'incident' } });
  t.equal(neither.status, 422);
  t.same(neither.body.detail[0].loc, ['body', 'expression']);
  const badKey = await request({ method: 'POST', url: `${api}/search/filters/preview`, token, payload: { filters: { colour: ['red'] } } });
  t.equal(badKey.status, 422, 'a pick on a field the subject lacks is refused');
});
