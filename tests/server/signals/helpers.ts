import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { and, count, eq } from 'drizzle-orm';
import type { Test } from 'tap';
import { incidentApp } from '../incidents/helpers.js';
import { drainSignals } from '../../../server/signals/ingest.js';
import { cases } from '../../../server/cases/tables.js';
import { entities, signalGroups, signalInstances } from '../../../server/signals/tables.js';

/** A recorded payload from fixtures/, with ROUTING_KEY replaced by `key` where given. */
export function fixture(name: string, key = ''): any {
  return JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8').replaceAll('ROUTING_KEY', key));
}

/**
 * An app with a project, a case type and priority, two entity types (an e-mail address anywhere in
 * the payload by regex; the host a PagerDuty or Alertmanager event names by JSONPath, port cut by
 * regex) and one signal definition using both, with its ingest key.
 */
export async function signalApp(t: Test, env: Record<string, string> = {}) {
  const base = await incidentApp(t, env);
  const { api, projectId } = base;
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await api(method, path, body);
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const caseType = await ok('POST', '/case_types', { name: 'Alert', project_id: projectId });
  const priority = await ok('POST', '/case_priorities', { name: 'P2', project_id: projectId });
  const email = await ok('POST', '/entity_type', {
    name: 'Email',
    regular_expression: '[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\\.[A-Za-z]{2,}',
    project_id: projectId,
  });
  const host = await ok('POST', '/entity_type', {
    name: 'Host',
    jpath: "$..['source','instance','host']",
    regular_expression: '(?i)^([a-z0-9.-]+?)(?::\\d+)?$',
    project_id: projectId,
  });
  const signal = await ok('POST', '/signals', {
    name: 'Prod alerts',
    project_id: projectId,
    case_type_id: caseType.id,
    case_priority_id: priority.id,
    entity_type_ids: [email.id, host.id],
  });
  const db = base.database.db;
  const ingest = (path: string, payload: unknown, opts: { key?: string; org?: string; headers?: Record<string, string> } = {}) =>
    base.request({
      method: 'POST',
      url: `/api/v1/${opts.org ?? 'default'}${path}`,
      payload: payload as never,
      headers: { ...(opts.key !== undefined ? { authorization: `Bearer ${opts.key}` } : {}), ...opts.headers },
    });
  const counts = async () => {
    const [[i], [c], [e], [g]] = await Promise.all([
      db.select({ n: count() }).from(signalInstances),
      db.select({ n: count() }).from(cases),
      db.select({ n: count() }).from(entities),
      db.select({ n: count() }).from(signalGroups),
    ]);
    return { instances: i!.n, cases: c!.n, entities: e!.n, groups: g!.n };
  };
  const orgId = (await api('GET', '/signals/' + signal.id)).body.organization_id as number;
  /** Waits until every signal is processed and the jobs it queued (case provisioning) have run. */
  const drain = async () => {
    await drainSignals(base.app, orgId);
    await base.drain();
  };
  const caseOf = async (instanceId: number) => {
    const [row] = await db.select({ case_id: signalInstances.case_id }).from(signalInstances).where(eq(signalInstances.id, instanceId));
    return row?.case_id ? (await api('GET', `/cases/${row.case_id}`)).body : null;
  };
  const casesByStatus = async () => {
    const rows = await db
      .select({ status: cases.status, n: count() })
      .from(cases)
      .where(and(eq(cases.organization_id, orgId)))
      .groupBy(cases.status);
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  };
  return { ...base, ok, caseType, priority, email, host, signal, key: signal.ingest_key as string, ingest, counts, drain, caseOf, casesByStatus, orgId };
}
