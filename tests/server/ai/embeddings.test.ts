import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { createSubmission, indexSubmission } from '../../../server/ai/ingest.js';
import { configureEmbeddings, embeddingsClient } from '../../../server/ai/embeddings.js';
import { planLimits } from '../../../server/billing/limits.js';
import { retrieve } from '../../../server/ai/retrieve.js';
import { loadConfig } from '../../../server/core/config.js';
import { withTenant } from '../../../server/core/db/tenant.js';
import { organizations, projects } from '../../../server/schema.js';
import { freshDatabase } from '../../helpers.js';

/**
 * A local server speaking the OpenAI embeddings protocol with a toy model: each vector counts the
 * words of three concepts, so "roll back" and "revert" land together as a real model would put them.
 */
const CONCEPTS = [
  ['roll', 'back', 'revert', 'previous', 'rollback'],
  ['deploy', 'release', 'finished'],
  ['dashboard', 'history', 'owner', 'shows'],
];
const toy = (text: string) => CONCEPTS.map((words) => (text.toLowerCase().match(/[a-z]+/g) ?? []).filter((w) => words.includes(w)).length);

async function embeddingsServer(t: Test, status = 200) {
  const requests: { auth?: string; body: { model: string; input: string[] } }[] = [];
  const read = async (req: IncomingMessage) => {
    let s = '';
    for await (const c of req) s += c;
    return s;
  };
  const server = createServer(async (req, res) => {
    const body = JSON.parse(await read(req)) as { model: string; input: string[] };
    requests.push({ auth: req.headers.authorization, body });
    if (req.method !== 'POST' || req.url !== '/v1/embeddings' || status !== 200) {
      res.writeHead(status === 200 ? 404 : status, { 'content-type': 'application/json' }).end('{"error":{"message":"no"}}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        object: 'list',
        model: body.model,
        data: body.input.map((text, index) => ({ object: 'embedding', index, embedding: toy(text) })).reverse(),
      }),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests };
}

t.test('with an embeddings endpoint the vector ranking is fused with the full-text one; without it nothing changes', async (t) => {
  const { database } = await freshDatabase(t);
  const db = database.db;
  const [org] = await db.insert(organizations).values({ name: 'Hybrid', description: 'tests', slug: 'hybrid', plan: 'team_pro' }).returning();
  const orgId = org!.id;
  const [project] = await withTenant(db, { orgId, userId: null }, (tx) => tx.insert(projects).values({ organization_id: orgId, name: 'Ops' }).returning());
  const limits = planLimits(loadConfig({ LOG_LEVEL: 'silent' }), 'team_pro');
  const upload = async (fileName: string, text: string) => {
    const { id } = await withTenant(db, { orgId, userId: null }, (tx) =>
      createSubmission(tx, { orgId, userId: null, sessionId: null }, limits, {
        kind: 'file',
        projectId: project!.id,
        title: fileName,
        fileName,
        content: Buffer.from(text),
        sensitivityLevel: 'internal',
      }),
    );
    await indexSubmission(db, orgId, id);
    return id;
  };
  // All three hold "deploy" once and nothing else of the question, so full text ranks them by upload order.
  const dashboard = await upload('a.md', 'The deploy dashboard shows history and the owner.');
  const revert = await upload('b.md', 'After a bad deploy, revert to the previous release.');
  await upload('c.md', 'The deploy finished.');
  const question = 'roll back the deploy';
  const ask = (embedder?: ReturnType<typeof embeddingsClient> | null) =>
    withTenant(db, { orgId, userId: null }, (tx) =>
      retrieve(tx, { orgId, projectId: project!.id, query: question, access: { kind: 'apikey' }, limit: 3, ...(embedder === undefined ? {} : { embedder }) }),
    );

  t.equal((await ask(null))[0]?.submission_id, dashboard, 'full text alone: the first upload first');
  t.equal((await ask())[0]?.submission_id, dashboard, 'nothing configured: the same');

  const { url, requests } = await embeddingsServer(t);
  configureEmbeddings(loadConfig({ LOG_LEVEL: 'silent', EMBEDDINGS_BASE_URL: url, EMBEDDINGS_MODEL: 'toy-embed', EMBEDDINGS_API_KEY: 'sk-local' }));
  t.teardown(() => configureEmbeddings(loadConfig({ LOG_LEVEL: 'silent' })));
  const hybrid = await ask();
  t.equal(hybrid[0]?.submission_id, revert, 'the passage that means the question comes first');
  t.equal(hybrid.length, 3);
  t.equal(requests.length, 1, 'one request for the question and the passages');
  t.equal(requests[0]!.auth, 'Bearer sk-local');
  t.equal(requests[0]!.body.model, 'toy-embed');
  t.equal(requests[0]!.body.input[0], question, 'the question first');
  t.equal(requests[0]!.body.input.length, 4, 'then each passage');
  await ask();
  t.same(requests[1]!.body.input, [question], 'passages are embedded once');

  const broken = await embeddingsServer(t, 500);
  const failing = embeddingsClient({ baseUrl: broken.url, model: 'toy-embed', timeoutMs: 2000 });
  t.equal((await ask(failing))[0]?.submission_id, dashboard, 'a failing endpoint leaves the full-text ranking');
  t.equal(broken.requests.length, 1);
  await t.rejects(failing.embed(['x']), /answered 500/);
});
