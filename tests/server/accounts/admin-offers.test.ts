import t from 'tap';
import { testApp } from '../../helpers.js';
import { mayWrite } from '../../../admin/src/core/rights.js';

/**
 * The admin offers a create or edit screen only where the rights the server reports allow it (the
 * caller's role from /auth/me against each resource's writeRole in /meta/resources): a Member is
 * offered no API key form, which the server would refuse; an Admin is; both may create incidents.
 */
t.test('what the admin reads: a Member is offered no API key form, an Admin is', async (t) => {
  const { request, login } = await testApp(t);
  await login('owner@example.com');
  const offers = async (token: string) => {
    const me = (await request({ method: 'GET', url: '/api/v1/default/auth/me', token })).body as { role: string };
    const metas = (await request({ method: 'GET', url: '/api/v1/default/meta/resources', token })).body.resources as {
      name: string;
      writeRole: 'Member' | 'Admin' | 'Manager' | 'Owner';
      updateRole: 'Member' | 'Admin' | 'Manager' | 'Owner';
    }[];
    const of = (name: string) => metas.find((m) => m.name === name)!;
    return { create: (name: string) => mayWrite(me.role, of(name)), edit: (name: string) => mayWrite(me.role, of(name), 'update') };
  };
  const member = await login('member@example.com', { role: 'Member' });
  const admin = await login('admin@example.com', { role: 'Admin' });
  const asMember = await offers(member);
  const asAdmin = await offers(admin);
  t.notOk(asMember.create('apikeys'), 'a Member is not offered Create on API keys');
  t.notOk(asMember.edit('apikeys'), 'nor their edit screen');
  t.notOk(asMember.create('webhooks/endpoints'), 'nor webhooks (Admin and above)');
  t.ok(asAdmin.create('apikeys'), 'an Admin is');
  t.ok(asMember.create('iaos'), 'a Member may create incidents');
  // And the server agrees with what was (not) offered.
  const [project] = (await request({ method: 'GET', url: '/api/v1/default/projects', token: member })).body.items as { id: number }[];
  const refused = await request({ method: 'POST', url: '/api/v1/default/apikeys', token: member, payload: { description: 'x', project_id: project!.id } });
  t.equal(refused.status, 403);
});
