import t from 'tap';
import { sql } from 'drizzle-orm';
import { compileSelect, decodeRow } from '../../../server/engine/compiled-select.js';
import { itemsWriter } from '../../../server/engine/serialize.js';
import { incidents } from '../../../server/schema.js';

/**
 * A list page's records are written as JSON text straight from the statement's rows; the text must be
 * exactly what JSON.stringify writes of the records decodeRow makes of the same rows.
 */
t.test('records written from their rows are JSON.stringify of the decoded records, byte for byte', async (t) => {
  const selection = {
    id: incidents.id,
    name: incidents.name,
    title: incidents.title,
    project_id: incidents.project_id,
    incident_type_id: incidents.incident_type_id,
    reported_at: incidents.reported_at,
    closed_at: incidents.closed_at,
    custom_fields: incidents.custom_fields,
    computed: sql`1`.as('computed'),
    flag: sql`true`.as('flag'),
    project: sql`1`.as('project'),
    incident_type_name: sql`1`.as('incident_type_name'),
  };
  // `project` replaces its name column in place; `incident_type` comes after every column.
  const compiled = compileSelect({ toSQL: () => ({ sql: 'select', params: [] }) }, selection, [
    { key: 'project', field: 'project_id', nameKey: 'name', from: 'project' },
    { key: 'incident_type', field: 'incident_type_id', nameKey: 'name', from: 'incident_type_name' },
  ]);
  const write = itemsWriter(compiled);
  // Rows as the drivers return them: timestamps as PostgreSQL's text (or another form), JSON parsed.
  const rows: unknown[][] = [
    [
      1,
      'IAO-1',
      'Quotes " and \\ and \n new lines, emoji 🔥, control \u0001, separators \u2028',
      3,
      7,
      '2026-03-01 12:34:56.123456+00',
      '2026-03-02 00:00:00+00',
      { a: [1, 'x', null], b: { c: true } },
      12.5,
      false,
      'Ops',
      'Security',
    ],
    [2, 'IAO-2', '', null, 8, '2026-03-01 12:34:56+00', null, null, null, true, null, null],
    // A project whose name the caller may not read: `{id}` alone; a timestamp in another zone.
    [3, 'IAO-3', 'x', 4, null, '2026-03-01 14:34:56.5+02', null, [], Number.NaN, null, null, 'Data'],
  ];
  const decoded = rows.map((row) => decodeRow(compiled, row));
  t.equal(write(rows, 25), JSON.stringify(decoded), 'every row');
  t.equal(write(rows, 2), JSON.stringify(decoded.slice(0, 2)), 'only the first rows a page asks for');
  t.equal(write([], 25), '[]', 'no rows');
  t.same(JSON.parse(write(rows, 1))[0].project, { id: 3, name: 'Ops' }, 'the nested reference in place of its name');
  t.same(Object.keys(JSON.parse(write(rows, 1))[0]).slice(-2), ['incident_type_name', 'incident_type'], 'a reference named from another column comes last');
});
