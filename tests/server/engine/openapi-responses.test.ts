import t from 'tap';
import { testApp } from '../../helpers.js';

/** Routes of the AI and signals domains whose answers are not described yet: remove each once it is. */
const NOT_YET_DESCRIBED = new Set(
  [
    'POST /auth/anonymous',
    'GET /auth/anonymous/me/{key}',
    'GET /organizations/anonymous/{key}',
    'GET /projects/anonymous/{key}',
    'POST /projects/anonymous/{key}',
    'GET /projects/anonymous/user/{key}',
    'GET /curated_content/trending',
    'GET /curated_content/anonymous/trending/{key}',
    'POST /curated_content/{id}/engagements',
    'GET /chats',
    'GET /chats/{id}',
    'PUT /chats/{id}',
    'DELETE /chats/{id}',
    'GET /chats/shared/{id}',
    'POST /chat_messages/{id}/feedback',
    'GET /chat_messages/liked',
    'GET /submissions',
    'POST /submissions/{id}/index',
    'DELETE /submissions/{id}',
    'POST /submissions/upload',
    'GET /entity/{id}/{sub}',
    'GET /entity/{id}/{sub}/{days}',
    'GET /entity_type/{id}/{sub}',
    'GET /entity_type/{id}/{sub}/{page}',
    'GET /entity/type/{type}',
    'GET /entity/class/{class}',
    'POST /entity/{id}/subscribe',
    'DELETE /entity/{id}/subscribe',
    'POST /entity_type/backtest',
    'GET /entity_type/{id}/backtest',
    'PUT /entity_type/{id}/process',
    'GET /entity_type/{id}/process',
    'POST /signals/instances',
    'POST /signals/instances/batch',
    'POST /signals/pagerduty/v2/enqueue',
    'POST /signals/alertmanager',
    'GET /signals/instances/{id}',
    'GET /signals/{id}/instances',
    'GET /signals/{id}/{instanceId}',
    'POST /signals/{id}/rotate_key',
    'POST /signals/preview',
    'POST /signals/grafana',
    'GET /signals/engagements/respond',
    'POST /signals/engagements/respond',
  ].map((route) => route.replace(' ', ' /api/v1/{organization}')),
);

t.test('every documented route describes its successful answer', async (t) => {
  const { request } = await testApp(t);
  const doc = (await request({ method: 'GET', url: '/api/v1/docs/json' })).body as {
    paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> }>>;
  };
  const missing: string[] = [];
  const excused: string[] = [];
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const route = `${method.toUpperCase()} ${path}`;
      const success = Object.entries(operation.responses ?? {}).filter(([status]) => /^[23]\d\d$/.test(status));
      // A 204 or a redirect has no body to describe; any other success names the schema of its body.
      const described = success.some(
        ([status, answer]) => status === '204' || status.startsWith('3') || Object.values(answer.content ?? {}).some((c) => c.schema),
      );
      if (NOT_YET_DESCRIBED.has(route)) {
        if (!described) excused.push(route);
      } else if (!described) missing.push(route);
    }
  }
  t.same(missing, [], 'no route answers without a described success');
  t.same(excused.sort(), [...NOT_YET_DESCRIBED].sort(), 'each route still excused exists and is still undescribed');

  const incident = doc.paths['/api/v1/{organization}/iaos/{id}']!.get!.responses!['200']!.content!['application/json']!.schema as {
    properties: Record<string, unknown>;
  };
  t.ok(incident.properties.title && incident.properties.events && incident.properties.participants, "an incident's answer lists its record and its parts");
  const errors = doc.paths['/api/v1/{organization}/iaos/{id}/join']!.post!.responses!['4XX']!.content!['application/json']!.schema as {
    properties: Record<string, unknown>;
  };
  t.ok(errors.properties.detail, 'errors are described as {"detail": [...]}');
});
