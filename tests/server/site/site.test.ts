import t from 'tap';
import { testApp } from '../../helpers.js';

t.test('public pages: the Owner writes them, visitors read the published ones of that organization only', async (t) => {
  const { request, login, organization } = await testApp(t);
  const owner = await login('owner@default.test', { role: 'Owner' });
  const admin = await login('admin@default.test', { role: 'Admin' });
  const call = (method: string, url: string, token?: string, payload?: unknown) =>
    request({ method: method as 'GET', url: `/api/v1/default${url}`, token, payload: payload as object });

  const denied = await call('POST', '/site/pages', admin, { kind: 'terms', title: 'Terms', body: 'x' });
  t.equal(denied.status, 403, 'an Admin may not write the public pages');

  const terms = await call('POST', '/site/pages', owner, { kind: 'terms', title: 'Terms of service', body: 'Be kind.\n\nNo warranty.' });
  t.equal(terms.status, 201);
  const draft = await call('POST', '/site/pages', owner, { kind: 'blog', title: 'Draft post', body: 'not yet', published: false });
  t.equal(draft.status, 201);
  const post = await call('POST', '/site/pages', owner, { kind: 'blog', title: 'Hello', body: 'First post' });
  t.equal(post.status, 201);

  const bad = await call('POST', '/site/pages', owner, { kind: 'news', title: '' });
  t.equal(bad.status, 422);
  t.same(bad.body.detail.map((d: { loc: string[] }) => d.loc.at(-1)).sort(), ['kind', 'title']);

  const site = await call('GET', '/site');
  t.equal(site.status, 200, 'no sign-in needed');
  t.same(
    site.body.pages.map((p: { title: string }) => p.title),
    ['Hello', 'Terms of service'],
    'published pages, newest first; the draft is not there',
  );
  t.equal(site.body.pages[1].body, 'Be kind.\n\nNo warranty.');

  const other = await organization('acme');
  const otherSite = await request({ method: 'GET', url: `/api/v1/${other.slug}/site` });
  t.same(otherSite.body.pages, [], "another organization's visitors see none of them");
  const foreign = await request({ method: 'PUT', url: `/api/v1/${other.slug}/site/pages/${terms.body.id}`, token: other.token, payload: { title: 'taken' } });
  t.equal(foreign.status, 404, "another organization's Owner cannot edit them");

  const edited = await call('PUT', `/site/pages/${post.body.id}`, owner, { title: 'Hello world' });
  t.equal(edited.status, 200);
  t.equal(edited.body.body, 'First post', 'a partial update keeps the body');
});

t.test('site settings: contact menu and product links, edited by an Admin, read by anyone', async (t) => {
  const { request, login } = await testApp(t);
  const admin = await login('admin@default.test', { role: 'Admin' });
  const member = await login('member@default.test', { role: 'Member' });
  const put = (token: string, payload: object) => request({ method: 'PUT', url: '/api/v1/default/site/settings', token, payload });

  const before = await request({ method: 'GET', url: '/api/v1/default/site' });
  t.equal(before.body.settings.contact_email, null, 'nothing configured yet');

  t.equal((await put(member, { contact_email: 'help@example.com' })).status, 403);
  const bad = await put(admin, { contact_email: 'nope', oncall_url: 'not a url', contact_phone: 'call me' });
  t.equal(bad.status, 422);
  t.same(bad.body.detail.map((d: { msg: string }) => d.msg).sort(), ['Must be a URL', 'Must be a phone number', 'Must be an e-mail address']);
  t.equal((await request({ method: 'GET', url: '/api/v1/default/site' })).body.settings.contact_email, null, 'a refused change changes nothing');

  const saved = await put(admin, {
    contact_email: 'Help@Example.com',
    contact_phone: '+1 555 0100',
    demo_url: 'https://example.com/demo',
    oncall_url: 'https://oncall.example.com',
  });
  t.equal(saved.status, 200);
  t.equal(saved.body.contact_email, 'help@example.com');
  const cleared = await put(admin, { demo_url: null, temporary_message: 'Maintenance at 22:00 UTC' });
  t.equal(cleared.body.demo_url, null);
  t.equal(cleared.body.oncall_url, 'https://oncall.example.com', 'fields not sent stay');
  const site = await request({ method: 'GET', url: '/api/v1/default/site' });
  t.match(site.body.settings, {
    contact_email: 'help@example.com',
    contact_phone: '+1 555 0100',
    oncall_url: 'https://oncall.example.com',
    temporary_message: 'Maintenance at 22:00 UTC',
  });
});

t.test('an expired token is answered with the spec wording', async (t) => {
  const { request, app } = await testApp(t);
  const expired = app.jwt.sign({ sub: '1', sid: 'x', exp: Math.floor(Date.now() / 1000) - 5 } as never);
  const res = await request({ method: 'GET', url: '/api/v1/default/auth/me', token: expired });
  t.equal(res.status, 401);
  t.equal(res.body.detail[0].msg, 'Your credentials have expired. Please refresh the page.');
});

t.test('the screens behind the sign-in are listed for visitors, so an unknown address can be told from them', async (t) => {
  const { request } = await testApp(t);
  const res = await request({ method: 'GET', url: '/api/v1/default/site/screens' });
  t.equal(res.status, 200, 'no sign-in needed');
  const screens = res.body.screens as string[];
  for (const name of ['iaos', 'cases', 'tasks', 'oncall/handoffs', 'data/sources', 'tag_types']) t.ok(screens.includes(name), `${name} is a screen`);
  t.notOk(screens.includes('no-such-screen'));
  t.notOk(
    screens.some((s) => s.startsWith('/')),
    'addresses under the organization, without a leading slash',
  );
  t.same(screens, [...screens].sort(), 'sorted, each once');
  t.equal(new Set(screens).size, screens.length);
});
