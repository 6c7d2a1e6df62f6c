import t from 'tap';
import { testApp } from '../../helpers.js';

t.test('every documented route describes its successful answer', async (t) => {
  const { request } = await testApp(t);
  const doc = (await request({ method: 'GET', url: '/api/v1/docs/json' })).body as {
    paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> }>>;
  };
  const missing: string[] = [];
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const route = `${method.toUpperCase()} ${path}`;
      const success = Object.entries(operation.responses ?? {}).filter(([status]) => /^[23]\d\d$/.test(status));
      // A 204 or a redirect has no body to describe; any other success names the schema of its body.
      const described = success.some(
        ([status, answer]) => status === '204' || status.startsWith('3') || Object.values(answer.content ?? {}).some((c) => c.schema),
      );
      if (!described) missing.push(route);
    }
  }
  t.same(missing, [], 'no route answers without a described success');

  const incident = doc.paths['/api/v1/{organization}/iaos/{id}']!.get!.responses!['200']!.content!['application/json']!.schema as {
    properties: Record<string, unknown>;
  };
  t.ok(incident.properties.title && incident.properties.events && incident.properties.participants, "an incident's answer lists its record and its parts");
  const answer = (path: string, method: string, status: string) => doc.paths[`/api/v1/{organization}${path}`]![method]!.responses![status]!.content!;
  const instance = answer('/signals/instances/{id}', 'get', '200')['application/json']!.schema as { properties: Record<string, { items?: unknown }> };
  t.ok(instance.properties.raw && instance.properties.entities?.items, "a signal instance's answer lists its payload and the entities found in it");
  const chat = answer('/chats/{id}', 'get', '200')['application/json']!.schema as { properties: Record<string, unknown> };
  t.ok(chat.properties.title && chat.properties.messages, "a chat's answer lists its title and messages");
  t.ok(answer('/signals/engagements/respond', 'get', '200')['text/html'], 'the page an engagement e-mail links to is described as HTML');
  t.ok(answer('/signals/pagerduty/v2/enqueue', 'post', '202')['application/json'], "PagerDuty's endpoint describes its 202");
  const errors = doc.paths['/api/v1/{organization}/iaos/{id}/join']!.post!.responses!['4XX']!.content!['application/json']!.schema as {
    properties: Record<string, unknown>;
  };
  t.ok(errors.properties.detail, 'errors are described as {"detail": [...]}');
});
