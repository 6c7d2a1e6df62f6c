import t from 'tap';
import { sql } from 'drizzle-orm';
import { pageSerializer } from '../../../server/engine/serialize.js';
import { incidents } from '../../../server/schema.js';

/** A list page written by the compiled serializer must be exactly what JSON.stringify writes. */
t.test('a page serialized from its fields is JSON.stringify of it, byte for byte', async (t) => {
  const selection = {
    id: incidents.id,
    name: incidents.name,
    title: incidents.title,
    project_id: incidents.project_id,
    reported_at: incidents.reported_at,
    closed_at: incidents.closed_at,
    custom_fields: incidents.custom_fields,
    computed: sql`1`.as('computed'),
    project: sql`1`.as('project'),
  };
  const write = pageSerializer(selection, [
    { key: 'project', field: 'project_id', nameKey: 'name', from: 'project' },
    { key: 'incident_type', field: 'incident_type_id', nameKey: 'name', from: 'incident_type_name' },
  ]);
  const items = [
    {
      id: 1,
      name: 'IAO-1',
      title: 'Quotes " and \\ and \n new lines, emoji 🔥, control \u0001',
      project_id: 3,
      reported_at: '2026-03-01T12:34:56.123Z',
      closed_at: new Date('2026-03-02T00:00:00.000Z'),
      custom_fields: { a: [1, 'x', null], b: { c: true } },
      computed: 12.5,
      project: { id: 3, name: 'Ops' },
      incident_type: { id: 7 },
      extra: 'a key the schema does not name',
    },
    {
      id: 2,
      name: 'IAO-2',
      title: '',
      project_id: null,
      reported_at: '2026-03-01T12:34:56.000Z',
      closed_at: null,
      custom_fields: null,
      computed: null,
      project: null,
      incident_type: null,
    },
  ];
  for (const page of [
    { items, total: 2, totalCapped: false, itemsPerPage: 25, page: 1 },
    { items: [], total: 0, totalCapped: false, itemsPerPage: 25, page: 3 },
  ]) {
    t.equal(write(page), JSON.stringify(page));
  }
});
