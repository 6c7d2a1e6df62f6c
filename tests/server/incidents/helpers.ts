import type { Test } from 'tap';
import { testApp, type TestApp } from '../../helpers.js';
import { drainJobs } from '../../../server/core/jobs/define.js';
import { created } from '../factories.js';

/** A test app with a signed-in owner, a project and shortcuts for incident calls. */
export async function incidentApp(t: Test, env: Record<string, string> = {}) {
  const base = await testApp(t, env);
  const token = await base.login('commander@example.com');
  const project = created(
    'project',
    await base.request({
      method: 'POST',
      url: '/api/v1/default/projects',
      token,
      payload: { name: 'Ops', annual_employee_cost: 208000, business_year_hours: 2080 },
    }),
  );
  const api = (method: string, path: string, payload?: unknown, as = token) =>
    base.request({ method: method as never, url: `/api/v1/default${path}`, token: as, ...(payload !== undefined ? { payload: payload as never } : {}) });
  const createIncident = async (body: Record<string, unknown> = {}, as = token) => {
    const res = await api(
      'POST',
      '/iaos',
      { title: 'Database down', description: 'Primary database refuses connections.', project_id: project.id, ...body },
      as,
    );
    return created('incident', res) as Record<string, any>;
  };
  /** Waits until the background jobs (conversation, conference, postmortem, workflows) have run. */
  const drain = () => drainJobs(base.app);
  return { ...base, token, projectId: project.id as number, api, createIncident, drain };
}
export type IncidentApp = Awaited<ReturnType<typeof incidentApp>> & TestApp;
