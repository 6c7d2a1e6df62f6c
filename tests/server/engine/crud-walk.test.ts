import { eq } from 'drizzle-orm';
import t from 'tap';
import { organizations } from '../../../server/schema.js';
import { resources } from '../../../server/resources.js';
import type { ResourceDefinition } from '../../../server/engine/define.js';
import { testApp } from '../../helpers.js';
import { factoriesFor } from '../factories.js';

/**
 * One walk over every registered definition: list (shape, default sort, page size, paging), get,
 * create, update, delete, bad bodies (422, nothing saved) and missing ids (404 with the message).
 * A new definition is covered by adding its sample here; the walk fails for one without a sample.
 */

/** Ids of parent records, created before the walk. */
interface Parents {
  project: number;
  tagType: number;
  formType: number;
  source: number;
  term: number;
  searchFilter: number;
  service: number;
  individual: number;
  entityType: number;
  signal: number;
  pluginInstance: number;
  workflow: number;
  webhookEndpoint: number;
  schedule: number;
}

interface Sample {
  /** Body of the i-th record (i = 0, 1). Record 0 must sort after record 1 under the default sort. */
  create(i: number, p: Parents): Record<string, unknown>;
  /** A change the update must show. */
  update: Record<string, unknown>;
}

const named = (extra: (i: number, p: Parents) => Record<string, unknown> = () => ({})): Sample => ({
  create: (i, p) => ({ name: i === 0 ? 'Walk zulu' : 'walk alpha', ...extra(i, p) }),
  update: { description: 'changed by the walk' },
});
const ranked = (): Sample => ({ create: (i) => ({ name: `Walk rank ${i}`, view_order: i === 0 ? 9 : 2 }), update: { description: 'changed by the walk' } });
const at = (i: number) => (i === 0 ? '2026-01-01T00:00:00.000Z' : '2026-06-01T00:00:00.000Z');

const samples: Record<string, Sample> = {
  '/organizations': {
    create: (i) => ({ name: `walk-org-${i === 0 ? 'z' : 'a'}`, description: 'An organization from the walk' }),
    update: { description: 'changed by the walk' },
  },
  '/invitations': { create: (i) => ({ email: `walk-${i === 0 ? 'a' : 'z'}@example.com`, role: i === 0 ? 'Admin' : 'Member' }), update: {} },
  '/projects': named(),
  '/apikeys': { create: (_i, p) => ({ project_id: p.project, description: 'walk key' }), update: { description: 'changed by the walk' } },
  '/tag_types': named(),
  '/tags': named((_i, p) => ({ tag_type_id: p.tagType })),
  '/incident_severities': ranked(),
  '/incident_priorities': ranked(),
  '/incident_types': named(),
  '/incident_cost_types': named(),
  '/incident_roles': { create: (i, p) => ({ role: i === 0 ? 'scribe' : 'commander', service_id: p.service }), update: { order: 3 } },
  '/case_priorities': ranked(),
  '/case_severities': ranked(),
  '/case_types': named(),
  '/services': named(),
  '/individuals': {
    create: (i) => ({ name: i === 0 ? 'Walk zulu' : 'walk alpha', email: `walk-individual-${i}@example.com` }),
    update: { notes: 'changed by the walk' },
  },
  '/teams': { create: (i) => ({ name: i === 0 ? 'Walk zulu' : 'walk alpha' }), update: { notes: 'changed by the walk' } },
  '/documents': named((i) => ({ resource_type: i === 0 ? 'dispatch-incident-runbook' : 'dispatch-case-document-template' })),
  '/terms': { create: (i) => ({ text: i === 0 ? 'Zulu term' : 'alpha term' }), update: { discoverable: false } },
  '/definitions': { create: (i, p) => ({ text: i === 0 ? 'Zulu means last' : 'alpha means first', terms: [p.term] }), update: { text: 'changed by the walk' } },
  '/bestpractices': { create: (i) => ({ name: `Practice ${i}`, count: i === 0 ? 1 : 5 }), update: { description: 'changed by the walk' } },
  '/weblinks': { create: (i) => ({ url: `https://example.com/${i}`, count: i === 0 ? 1 : 5 }), update: { title: 'changed by the walk' } },
  '/cost_models': named(() => ({ activities: [{ plugin_event: 'page', response_time_seconds: 300 }] })),
  '/data/sources/environments': named(),
  '/data/sources/statuses': named(),
  '/data/sources/transports': named(),
  '/data/sources/types': named(),
  '/data/sources/dataFormats': named(),
  '/data/sources': named(),
  '/data/queries': named((_i, p) => ({ text: 'select 1', source_id: p.source })),
  '/data/commands': {
    create: (i) => ({ name: `Command ${i}`, command_text: 'uptime', count: i === 0 ? 1 : 5 }),
    update: { description: 'changed by the walk' },
  },
  '/oncall/handoffs': {
    create: (i) => ({ handover_from: 'ann@example.com', handover_to: 'bob@example.com', end_time: at(i) }),
    update: { pending_tasks: 'changed by the walk' },
  },
  '/oncall/preshift_preps': { create: (i) => ({ handover_to: 'bob@example.com', sent: true, sent_at: at(i) }), update: { shift_type: 'night' } },
  '/feedback': { create: () => ({ rating: 'Very satisfied', feedback: 'walk' }), update: { feedback: 'changed by the walk' } },
  '/servicefeedback': {
    create: (_i, p) => ({ rating: 'Little effort', service_id: p.service, individual_contact_id: p.individual }),
    update: { feedback: 'changed by the walk' },
  },
  '/commits': { create: (i) => ({ commit_id: `abc${i}`, commit_message: 'walk', commit_date: at(i) }), update: { sync_completed: true } },
  '/notifications': named(() => ({ target: '#incidents' })),
  '/search/filters': named(() => ({ expression: { and: [{ field: 'status', op: '==', value: 'Active' }] } })),
  '/form_types': named(() => ({ form_schema: { type: 'object', properties: { summary: { type: 'string' } } } })),
  '/forms': { create: (_i, p) => ({ form_type_id: p.formType, form_data: { summary: 'walk' }, creator: 'walker' }), update: { status: 'Completed' } },
  '/iaos': { create: (i, p) => ({ title: `Walk incident ${i}`, project_id: p.project, reported_at: at(i) }), update: { title: 'Changed by the walk' } },
  '/cases': { create: (i, p) => ({ title: `Walk case ${i}`, project_id: p.project, reported_at: at(i) }), update: { title: 'Changed by the walk' } },
  '/tasks': { create: (i) => ({ description: `Walk task ${i}` }), update: { priority: 'High' } },
  '/curated_content': { create: (i) => ({ text: `Walk item ${i}`, link: `https://example.com/item/${i}` }), update: { text: 'Changed by the walk' } },
  '/okrs': { create: (i) => ({ title: i === 0 ? 'Zulu objective' : 'alpha objective' }), update: { description: 'changed by the walk' } },
  '/entity_type': named(),
  '/entity': {
    create: (i, p) => ({ value: i === 0 ? 'Walk zulu' : 'walk alpha', entity_type_id: p.entityType }),
    update: { description: 'changed by the walk' },
  },
  '/signals/filters': named(),
  '/signals/engagements': named(),
  '/signals': named((_i, p) => ({ project_id: p.project })),
  '/signals/instances': { create: (i, p) => ({ signal_id: p.signal, source: 'native', raw: { walk: i }, created_at: new Date(at(i)) }), update: {} },
  '/plugins/instances': { create: (i) => ({ plugin_slug: 'step-engine', title: i === 0 ? 'Walk zulu' : 'walk alpha' }), update: { enabled: false } },
  '/plugins/plugin_events': { create: (i) => ({ plugin_slug: 'step-engine', name: `Walk event ${i}`, created_at: new Date(at(i)) }), update: {} },
  '/workflows': named((_i, p) => ({ plugin_instance_id: p.pluginInstance })),
  '/oncall/schedules': named(),
  '/oncall/escalation_policies': named(() => ({ steps: [{ timeout_minutes: 5, targets: [{ type: 'person', email: 'walker@example.com' }] }] })),
  '/oncall/overrides': {
    create: (i, p) => ({
      schedule_id: p.schedule,
      email: 'walker@example.com',
      start_at: at(i),
      end_at: new Date(Date.parse(at(i)) + 3_600_000).toISOString(),
    }),
    update: { note: 'changed by the walk' },
  },
  '/oncall/pages': { create: (i) => ({ key: `walk-${i}`, title: `Walk page ${i}`, created_at: new Date(at(i)) }), update: {} },
  '/workflows/instances': { create: (i, p) => ({ workflow_id: p.workflow, deadline_at: new Date(at(i)), created_at: new Date(at(i)) }), update: {} },
  '/webhooks/endpoints': {
    create: (i) => ({ url: i === 0 ? 'https://zulu.example.com/hook' : 'https://alpha.example.com/hook', events: ['incident.created'] }),
    update: { description: 'changed by the walk' },
  },
  '/site/pages': { create: (i) => ({ kind: 'blog', title: i === 0 ? 'Walk zulu' : 'walk alpha', published: true }), update: { title: 'Changed by the walk' } },
  '/webhooks/deliveries': {
    create: (i, p) => ({
      endpoint_id: p.webhookEndpoint,
      message_id: `msg_walk_${i}`,
      event_type: 'incident.created',
      payload: { walk: i },
      created_at: new Date(at(i)),
    }),
    update: {},
  },
};

/** Where the standard flow does not apply, and why. */
const notStandard: Record<string, string> = {
  '/users': 'people join by invitation, and only they change their profile: tests/server/invitations.test.ts',
};

/** PostgreSQL's order for the default sort: text by lower() in byte order, nulls last ascending. */
function compare(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return 1;
  if (b === null || b === undefined) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const [x, y] = [String(a), String(b)];
  const iso = /^\d{4}-\d\d-\d\dT/;
  if (iso.test(x) && iso.test(y)) return Date.parse(x) - Date.parse(y);
  const [lx, ly] = [Buffer.from(x.toLowerCase()), Buffer.from(y.toLowerCase())];
  return Buffer.compare(lx, ly);
}

function sortedBy(items: Record<string, unknown>[], sort: ResourceDefinition['sort']) {
  return [...items].sort((a, b) => {
    for (const [field, dir] of sort) {
      const c = compare(a[field], b[field]);
      if (c !== 0) return dir === 'desc' ? -c : c;
    }
    return (a.id as number) - (b.id as number);
  });
}

t.test('every definition walks through the standard CRUD flow', async (t) => {
  const { request, login, database } = await testApp(t);
  const token = await login('walker@example.com');
  const api = (method: string, url: string, payload?: unknown) =>
    request({ method: method as never, url: `/api/v1/default${url}`, token, ...(payload === undefined ? {} : { payload: payload as never }) });
  const make = factoriesFor(api).makeId;
  const parents: Parents = {
    project: await make('/projects', { name: 'Walk parent project' }),
    tagType: await make('/tag_types', { name: 'Walk parent type' }),
    formType: await make('/form_types', { name: 'Walk parent form', form_schema: { type: 'object', properties: { summary: { type: 'string' } } } }),
    source: await make('/data/sources', { name: 'Walk parent source' }),
    term: await make('/terms', { text: 'Walk parent term' }),
    searchFilter: await make('/search/filters', { name: 'Walk parent filter', expression: { field: 'title', op: 'ilike', value: '%db%' } }),
    service: await make('/services', { name: 'Walk parent service' }),
    individual: await make('/individuals', { name: 'Walk parent', email: 'walk-parent@example.com' }),
    entityType: await make('/entity_type', { name: 'Walk parent entity type' }),
    signal: 0,
    pluginInstance: await make('/plugins/instances', { plugin_slug: 'step-engine', title: 'Walk parent steps' }),
    workflow: 0,
    webhookEndpoint: await make('/webhooks/endpoints', { url: 'https://parent.example.com/hook', events: ['incident.created'] }),
    schedule: await make('/oncall/schedules', { name: 'Walk parent schedule' }),
  };
  parents.signal = await make('/signals', { name: 'Walk parent signal', project_id: parents.project });
  parents.workflow = await make('/workflows', { name: 'Walk parent workflow', plugin_instance_id: parents.pluginInstance });

  for (const def of resources) {
    if (notStandard[def.path]) continue;
    await t.test(def.path, async (t) => {
      const sample = samples[def.path];
      if (!sample) return t.fail(`No sample body for ${def.path}: add one to tests/server/engine/crud-walk.test.ts`);
      const on = { list: true, get: true, create: true, update: true, delete: true, ...def.routes };
      const missing = `${def.label} '987654' could not be found.`;

      // Records to walk: through the API, or (list-only resources) straight into the table.
      const ids: number[] = [];
      for (const i of [0, 1]) {
        const body = sample.create(i, parents);
        if (on.create) {
          const created = await api('POST', def.path, body);
          t.equal(created.status, 201, `create ${i}: ${JSON.stringify(created.body)}`);
          for (const [key, value] of Object.entries(body)) if (typeof value !== 'object') t.same(created.body[key], value, `create echoes ${key}`);
          ids.push(created.body.id);
        } else {
          const [org] = await database.db.select({ id: organizations.id }).from(organizations).where(eq(organizations.slug, 'default'));
          const [row] = (await database.db
            .insert(def.table)
            .values({ ...body, organization_id: org!.id } as never)
            .returning()) as { id: number }[];
          ids.push(row!.id);
        }
      }

      // List: shape, page size, default sort over everything listed, and paging.
      const list = await api('GET', def.path);
      t.equal(list.status, 200);
      t.match(list.body, { items: Array, itemsPerPage: Number, page: Number, total: Number }, 'list shape');
      t.equal(list.body.itemsPerPage, def.pageSize, 'page size');
      t.equal(list.body.page, 1);
      const listed = list.body.items as Record<string, unknown>[];
      for (const id of ids)
        t.ok(
          listed.some((r) => r.id === id),
          `record ${id} is listed`,
        );
      t.same(
        listed.map((r) => r.id),
        sortedBy(listed, def.sort).map((r) => r.id),
        `default sort ${JSON.stringify(def.sort)}`,
      );
      const page2 = await api('GET', `${def.path}?itemsPerPage=1&page=2`);
      t.equal(page2.body.items.length, 1, 'second page of one');
      t.equal(page2.body.items[0].id, listed[1]!.id, 'second page holds the second record');

      // Get.
      if (on.get) {
        const got = await api('GET', `${def.path}/${ids[0]}`);
        t.equal(got.status, 200);
        t.equal(got.body.id, ids[0]);
        const absent = await api('GET', `${def.path}/987654`);
        t.equal(absent.status, 404);
        t.equal(absent.body.detail[0].msg, missing);
      }

      // Bad bodies: unknown field, wrong type; nothing is saved.
      if (on.create) {
        const good = sample.create(0, parents);
        const unknown = await api('POST', def.path, { ...good, not_a_field: 1 });
        t.equal(unknown.status, 422, 'unknown field');
        t.match(unknown.body.detail[0].msg, /Unknown field 'not_a_field'/);
        const textKey = Object.keys(good).find((k) => typeof good[k] === 'string')!;
        const wrongType = await api('POST', def.path, { ...good, [textKey]: 12345 });
        t.equal(wrongType.status, 422, `wrong type for ${textKey}`);
        t.same(wrongType.body.detail[0].loc, ['body', textKey]);
        t.equal((await api('GET', def.path)).body.total, list.body.total, 'bad bodies saved nothing');
      }

      // Update.
      if (on.update) {
        const updated = await api('PUT', `${def.path}/${ids[0]}`, sample.update);
        t.equal(updated.status, 200, `update: ${JSON.stringify(updated.body)}`);
        for (const [key, value] of Object.entries(sample.update)) t.same(updated.body[key], value, `update sets ${key}`);
        const unknown = await api('PUT', `${def.path}/${ids[0]}`, { not_a_field: 1 });
        t.equal(unknown.status, 422);
        const absent = await api('PUT', `${def.path}/987654`, sample.update);
        t.equal(absent.status, 404);
        t.equal(absent.body.detail[0].msg, missing);
      }

      // Delete.
      if (on.delete) {
        t.equal((await api('DELETE', `${def.path}/${ids[0]}`)).status, 204);
        if (on.get) t.equal((await api('GET', `${def.path}/${ids[0]}`)).status, 404, 'gone after delete');
        t.notOk(
          (await api('GET', `${def.path}?itemsPerPage=-1`)).body.items.some((r: { id: number }) => r.id === ids[0]),
          'not listed after delete',
        );
        const again = await api('DELETE', `${def.path}/${ids[0]}`);
        t.equal(again.status, 404);
        t.equal(again.body.detail[0].msg, `${def.label} '${ids[0]}' could not be found.`);
      }
    });
  }
});
