import t from 'tap';
import { testApp } from '../../helpers.js';
import { created } from '../factories.js';

/** Another organization's ids, in paths or bodies, are 404 or 422 and change nothing on either side. */
t.test("organization B's ids in organization A's paths and bodies", async (t) => {
  const { request, login, organization } = await testApp(t);
  const tokenA = await login('a-owner@example.com');
  const b = await organization('acme');
  const as = (slug: string, token: string) => async (method: string, url: string, payload?: unknown) =>
    request({ method: method as never, url: `/api/v1/${slug}${url}`, token, ...(payload === undefined ? {} : { payload: payload as never }) });
  const apiA = as('default', tokenA);
  const apiB = as(b.slug, b.token);
  const make = async (api: typeof apiA, url: string, payload: unknown) => {
    return created(url, await api('POST', url, payload));
  };

  const inB = {
    project: await make(apiB, '/projects', { name: 'B project' }),
    service: await make(apiB, '/services', { name: 'B service' }),
    individual: await make(apiB, '/individuals', { name: 'B person', email: 'b@acme.test' }),
    filter: await make(apiB, '/search/filters', { name: 'B filter', expression: { field: 'status', op: '==', value: 'Active' } }),
    sourceType: await make(apiB, '/data/sources/types', { name: 'B type' }),
    formType: await make(apiB, '/form_types', { name: 'B form', form_schema: { type: 'object' } }),
    document: await make(apiB, '/documents', { name: 'B template', resource_type: 'dispatch-incident-document-template' }),
    term: await make(apiB, '/terms', { text: 'B term' }),
  };
  const feedbackB = await make(apiB, '/servicefeedback', { rating: 'No effort', service_id: inB.service.id });
  const sourceA = await make(apiA, '/data/sources', { name: 'A source' });

  // Paths: B's records are not found from A.
  for (const [path, record, label] of [
    ['/services', inB.service, 'Service'],
    ['/individuals', inB.individual, 'Individual'],
    ['/search/filters', inB.filter, 'Search filter'],
    ['/data/sources/types', inB.sourceType, 'Source type'],
    ['/form_types', inB.formType, 'Form type'],
    ['/documents', inB.document, 'Document'],
    ['/terms', inB.term, 'Term'],
  ] as const) {
    const msg = `${label} '${record.id}' could not be found.`;
    for (const [method, payload] of [['GET'], ['PUT', { description: 'from A' }], ['DELETE']] as const) {
      const res = await apiA(
        method,
        `${path}/${record.id}`,
        payload && path === '/terms' ? { text: 'from A' } : payload && path === '/individuals' ? { notes: 'from A' } : payload,
      );
      t.equal(res.status, 404, `${method} ${path}/{B id}`);
      t.equal(res.body.detail[0].msg, msg);
    }
    t.notOk(
      (await apiA('GET', `${path}?itemsPerPage=-1`)).body.items.some((r: { id: number }) => r.id === record.id),
      `${path}: not in A's list`,
    );
  }
  t.equal((await apiA('DELETE', `/servicefeedback/${feedbackB.id}/0`)).status, 404, 'two-id delete');
  t.equal((await apiA('GET', `/tags/recommendations/Document/${inB.document.id}`)).status, 404, 'recommendations');

  // Bodies: B's ids as references are 422 naming the missing record, and nothing is saved.
  for (const [url, payload, field, msg] of [
    ['/data/sources', { name: 'x', source_type_id: inB.sourceType.id }, 'source_type_id', `Source type '${inB.sourceType.id}'`],
    ['/services', { name: 'x', filters: [inB.filter.id] }, 'filters', `Search filter '${inB.filter.id}'`],
    ['/forms', { form_type_id: inB.formType.id }, 'form_type_id', `Form type '${inB.formType.id}'`],
    ['/incident_types', { name: 'x', incident_template_document_id: inB.document.id }, 'incident_template_document_id', `Document '${inB.document.id}'`],
    ['/definitions', { text: 'x', terms: [inB.term.id] }, 'terms', `Term '${inB.term.id}'`],
    ['/incident_roles', { role: 'scribe', service_id: inB.service.id }, 'service_id', `Service '${inB.service.id}'`],
    ['/incident_priorities', { name: 'x', project_id: inB.project.id }, 'project_id', `Project '${inB.project.id}'`],
    ['/servicefeedback', { rating: 'No effort', individual_contact_id: inB.individual.id }, 'individual_contact_id', `Individual '${inB.individual.id}'`],
  ] as const) {
    const before = (await apiA('GET', url)).body.total;
    const res = await apiA('POST', url, payload);
    t.equal(res.status, 422, `POST ${url} with B's ${field}`);
    t.same(res.body.detail[0].loc, ['body', field]);
    t.equal(res.body.detail[0].msg, `${msg} could not be found.`);
    t.equal((await apiA('GET', url)).body.total, before, `${url}: nothing saved`);
  }
  const repoint = await apiA('PUT', `/data/sources/${sourceA.id}`, { source_type_id: inB.sourceType.id });
  t.equal(repoint.status, 422, 'update to a B reference');
  t.equal((await apiA('GET', `/data/sources/${sourceA.id}`)).body.source_type_id, null, 'unchanged');

  // B's side is untouched.
  for (const [path, record] of [
    ['/services', inB.service],
    ['/search/filters', inB.filter],
    ['/documents', inB.document],
    ['/terms', inB.term],
  ] as const) {
    const now = await apiB('GET', `${path}/${record.id}`);
    t.equal(now.status, 200);
    t.same({ ...now.body, services: undefined, definitions: undefined }, { ...record, services: undefined, definitions: undefined }, `${path} in B unchanged`);
  }
  t.equal((await apiB('GET', '/servicefeedback')).body.total, 1, "B's feedback still there");
});
