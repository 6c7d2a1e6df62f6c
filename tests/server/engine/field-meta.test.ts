import t from 'tap';
import { testApp } from '../../helpers.js';

/**
 * GET /meta/resources describes each field as people read it: label, input kind, list column, the
 * model an id refers to; and each resource's plural and the field that names a record. The admin
 * app draws its forms from this and guesses nothing from field names.
 */
interface Field {
  name: string;
  label: string;
  kind: string;
  list: boolean;
  form: boolean;
  reference?: string;
  resource?: string;
  help?: string;
  choices?: { id: string; name: string }[];
  items?: Field[];
}
interface Meta {
  name: string;
  label: string;
  labelPlural: string;
  recordRepresentation: string;
  fields: Field[];
  create: { properties: Record<string, unknown> };
}

t.test("resource metadata names fields, kinds, references and plurals in people's words", async (t) => {
  const { request, login } = await testApp(t);
  const token = await login('owner@example.com');
  const res = await request({ method: 'GET', url: '/api/v1/default/meta/resources', token });
  t.equal(res.status, 200);
  const metas = res.body.resources as Meta[];
  const meta = (name: string) => metas.find((m) => m.name === name)!;
  const field = (resource: string, name: string) => meta(resource).fields.find((f) => f.name === name)!;

  t.test('defaults come from the column and its name', async (t) => {
    t.match(meta('tag_types'), { label: 'Tag type', labelPlural: 'Tag types', recordRepresentation: 'name' });
    t.match(meta('case_priorities'), { labelPlural: 'Case priorities' });
    t.match(field('tags', 'tag_type_id'), { label: 'Tag type', kind: 'reference', reference: 'TagType', resource: 'tag_types', list: true, form: true });
    t.match(field('tags', 'terms'), { label: 'Terms', kind: 'references', reference: 'Term', resource: 'terms' });
    t.match(field('tags', 'external_id'), { label: 'External ID', kind: 'text' }, 'an id that is not a reference keeps its word');
    t.match(field('tags', 'uri'), { label: 'URI', kind: 'url' });
    t.match(field('tags', 'description'), { kind: 'longtext', list: true }, 'a description is listed');
    t.match(field('individuals', 'notes'), { kind: 'longtext', list: false }, 'other long text is not');
    t.match(field('tags', 'discoverable'), { kind: 'boolean' });
    t.match(field('incident_severities', 'color'), { kind: 'color' });
    t.match(field('individuals', 'email'), { kind: 'email' });
    t.match(field('oncall/handoffs', 'end_time'), { kind: 'date' });
    t.match(field('feedback', 'rating'), { kind: 'enum', choices: [{ id: 'Very satisfied', name: 'Very satisfied' }] });
    t.match(field('data/sources', 'links'), {
      kind: 'list',
      items: [
        { name: 'name', kind: 'text' },
        { name: 'url', kind: 'url' },
      ],
    });
    t.match(field('tags', 'created_at'), { form: false }, 'a server-managed column is not a form field');
    t.notOk(meta('tags').create.properties.created_at, 'nor in the body');
    t.ok(meta('tags').fields.filter((f) => f.list).length <= 8, 'a list shows eight columns at most');
  });

  t.test('definitions override where the default is wrong', async (t) => {
    t.match(meta('iaos'), { label: 'Incident', labelPlural: 'Incidents', recordRepresentation: 'name' }, 'incidents are "Incidents", not IAOs');
    t.match(meta('users'), { label: 'Member', labelPlural: 'Members' });
    t.match(meta('feedback'), { labelPlural: 'Feedback' });
    t.match(field('iaos', 'tags'), { kind: 'references', reference: 'Tag', resource: 'tags' }, 'tags are picked, not typed as JSON');
    t.match(field('documents', 'resource_type'), { label: 'Type', kind: 'enum' });
    t.same(
      field('documents', 'resource_type')
        .choices!.filter((c) => c.id.endsWith('-runbook'))
        .slice(0, 2),
      [
        { id: 'dispatch-incident-runbook', name: 'Incident runbook' },
        { id: 'dispatch-investigation-runbook', name: 'Investigation runbook' },
      ],
      'document types in words, values unchanged',
    );
    t.match(field('incident_types', 'storycurve_logging_enabled'), { label: 'Record a story curve of the timeline' });
    t.match(field('incident_types', 'plugin_metadata'), { form: false }, 'no plugins exist: not in the form');
    t.match(field('incident_types', 'custom_checklist'), { kind: 'list', label: 'Checklist' });
    t.match(field('projects', 'custom_ttp_patterns'), { kind: 'strings', label: 'Attack techniques to recognize', help: /MITRE/ });
    t.match(field('incident_roles', 'role'), { choices: [{ id: 'reporter', name: 'Reporter' }] });
    t.match(meta('incident_roles'), { recordRepresentation: 'role' });
    t.match(field('search/filters', 'expression'), { kind: 'json', help: /JSON/ }, 'free-form JSON says so');
    t.match(field('okrs', 'key_results'), { kind: 'list', items: [{ name: 'title' }, { name: 'target' }, { name: 'current', label: 'Now' }] });
    t.match(field('okrs', 'progress'), { label: 'Progress (%)', kind: 'number', form: false });
  });

  t.test('no label in any form is a raw identifier', async (t) => {
    const lower = metas.flatMap((m) => m.fields.filter((f) => f.form && !/^[A-Z0-9]/.test(f.label)).map((f) => `${m.name}.${f.name}: ${f.label}`));
    t.same(lower, [], 'labels start as a sentence');
    const snake = metas.flatMap((m) => m.fields.filter((f) => f.form && /_/.test(f.label)).map((f) => `${m.name}.${f.name}`));
    t.same(snake, [], 'no snake_case label');
    const machine = metas.flatMap((m) =>
      m.fields.flatMap((f) => (f.choices ?? []).filter((c) => /^[a-z0-9]+(-[a-z0-9]+)+$/.test(c.name)).map((c) => `${m.name}.${f.name}: ${c.name}`)),
    );
    t.same(machine, [], 'no enum choice reads as a slug');
  });
});
