import type { Version3Client } from 'jira.js';
import { RateLimited, retryAfterSeconds } from '../core/http/outbound.js';
import { ServiceRefused } from '../plugins/outside.js';
import type { LoadedPlugin } from '../plugins/registry.js';
import type { StatusCategory, TicketRef, TicketRequest } from './capabilities.js';
import { ticketsFetch } from './http.js';

// Loaded on first use: jira.js is a large module that a server with no Jira plugin never needs.
let jiraModule: Promise<typeof import('jira.js')> | undefined;

/** A Jira Cloud site's REST v3 client for a plugin instance (basic auth: e-mail and API token). */
export async function jiraClient(plugin: LoadedPlugin): Promise<Version3Client> {
  const { Version3Client } = await (jiraModule ??= import('jira.js'));
  return new Version3Client({
    host: String(plugin.config.site_url).replace(/\/+$/, ''),
    authentication: { basic: { email: String(plugin.config.email), apiToken: String(plugin.config.api_token) } },
    baseRequestConfig: { adapter: 'fetch', env: { fetch: ticketsFetch(plugin.outbound) }, timeout: 15_000 } as never,
  });
}

export const NEEDED_PERMISSIONS = ['BROWSE_PROJECTS', 'CREATE_ISSUES', 'EDIT_ISSUES', 'TRANSITION_ISSUES', 'ADD_COMMENTS'];

interface JiraFailure {
  status?: number;
  response?: { data?: { errorMessages?: string[]; errors?: Record<string, string> } };
  cause?: { response?: { headers?: Record<string, string> } };
  message?: string;
}

/** Fields Jira would not set because they are not on the issue type's create or edit screen. */
export const offScreenFields = (err: unknown) =>
  Object.entries((err as JiraFailure).response?.data?.errors ?? {})
    .filter(([, msg]) => /appropriate screen/i.test(msg))
    .map(([field]) => field);

/** Jira's refusal in words a person can act on; a 429 becomes RateLimited (with Jira's Retry-After). */
export function jiraProblem(err: unknown): Error {
  const e = err as JiraFailure;
  if (!e?.status) return err instanceof Error ? err : new Error(String(err));
  const headers = e.cause?.response?.headers ?? {};
  if (e.status === 429)
    return new RateLimited(
      'Jira',
      retryAfterSeconds((n) => headers[n]),
    );
  const data = e.response?.data ?? {};
  const fields = Object.entries(data.errors ?? {});
  const said = [...(data.errorMessages ?? []), ...fields.map(([f, m]) => `${f}: ${m}`)].join('; ') || e.message || '';
  const offScreen = offScreenFields(err);
  if (offScreen.length)
    return new ServiceRefused(
      `Jira will not set ${offScreen.join(', ')}: the field is not on the appropriate screen of the project's issue type. Add it to that screen in Jira, or remove it from the type's plugin metadata.`,
      e.status,
    );
  if (e.status === 401) return new ServiceRefused('Jira refused the e-mail and API token (401): check them in the plugin settings.', 401);
  if (e.status === 403 || /permission/i.test(said))
    return new ServiceRefused(
      `The Jira account lacks a permission (${e.status}): ${said}. It needs Browse projects, Create issues, Edit issues, Transition issues and Add comments on the project.`,
      e.status,
    );
  if (e.status === 404) return new ServiceRefused(`Jira found no such project or issue (404): ${said}`, 404);
  return new ServiceRefused(`Jira answered ${e.status}: ${said}`, e.status);
}

/** Runs a Jira call, turning its failure into jiraProblem's error. */
export async function jira<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw jiraProblem(err);
  }
}

/** The description in Atlassian Document Format: the record's text, then a link back to Firewatch. */
export function adfDescription(t: TicketRequest) {
  const paragraphs = (t.description ?? '').split(/\n{2,}/).filter((p) => p.trim());
  return {
    type: 'doc',
    version: 1,
    content: [
      ...paragraphs.map((p) => ({ type: 'paragraph', content: [{ type: 'text', text: p.trim() }] })),
      {
        type: 'paragraph',
        content: [
          { type: 'text', text: `${t.kind === 'incident' ? 'Incident' : 'Case'} ${t.name} in Firewatch: ` },
          { type: 'text', text: t.link, marks: [{ type: 'link', attrs: { href: t.link } }] },
        ],
      },
    ],
  };
}

/** The label that finds an issue again: unique per organization and record. */
export const labelOf = (t: TicketRequest) => `firewatch-${t.organization}-${t.name}`.toLowerCase();

/** Creates the issue, or finds the one an earlier run created (by its label). */
export async function createIssue(plugin: LoadedPlugin, t: TicketRequest): Promise<TicketRef> {
  const client = await jiraClient(plugin);
  const label = labelOf(t);
  const site = String(plugin.config.site_url).replace(/\/+$/, '');
  const ref = (key: string, warning?: string): TicketRef => ({ resource_type: 'jira-ticket', resource_id: key, weblink: `${site}/browse/${key}`, warning });
  const found = await jira(() => client.issueSearch.searchForIssuesUsingJqlEnhancedSearchPost({ jql: `labels = "${label}"`, fields: ['key'], maxResults: 1 }));
  if (found.issues?.[0]?.key) return ref(found.issues[0].key);
  const custom = Object.fromEntries(Object.entries(t.metadata).filter(([k]) => k.startsWith('customfield_')));
  const fields = (extra: Record<string, unknown>) => ({
    project: { key: String(t.metadata.project_key ?? plugin.config.project_key) },
    issuetype: { name: String(t.metadata.issue_type_name ?? plugin.config.issue_type ?? 'Task') },
    summary: `${t.name}: ${t.title}`.slice(0, 255),
    description: adfDescription(t),
    labels: ['firewatch', label],
    ...extra,
  });
  try {
    const created = await client.issues.createIssue({ fields: fields(custom) as never });
    return ref(created.key!);
  } catch (err) {
    // Dispatch's most asked question (#421): a field off the screen. The ticket is made without it.
    const offScreen = offScreenFields(err);
    if (!offScreen.length) throw jiraProblem(err);
    const kept = Object.fromEntries(Object.entries(custom).filter(([k]) => !offScreen.includes(k)));
    const created = await jira(() => client.issues.createIssue({ fields: fields(kept) as never }));
    return ref(created.key!, `${jiraProblem(err).message} ${created.key} was created without it.`);
  }
}

/** Moves the issue through the first transition whose target status is of `category` (never by name). */
export async function moveIssue(plugin: LoadedPlugin, key: string, category: StatusCategory): Promise<{ status: string }> {
  const client = await jiraClient(plugin);
  const issue = await jira(() => client.issues.getIssue({ issueIdOrKey: key, fields: ['status'] }));
  const current = issue.fields?.status;
  if (current?.statusCategory?.key === category) return { status: current.name ?? category };
  const { transitions = [] } = await jira(() => client.issues.getTransitions({ issueIdOrKey: key }));
  const to = transitions.find((tr) => tr.to?.statusCategory?.key === category);
  if (!to?.id)
    throw new ServiceRefused(
      `Jira offers no transition from ${current?.name ?? 'its status'} to a status of the "${category}" category on ${key}: add one to the workflow, or move it by hand.`,
      409,
    );
  await jira(() => client.issues.doTransition({ issueIdOrKey: key, transition: { id: to.id } }));
  return { status: to.to?.name ?? category };
}

/** The credentials and the rights the plugin needs on its project, in words. */
export async function jiraHealth(plugin: LoadedPlugin) {
  const client = await jiraClient(plugin);
  const findings: string[] = [];
  try {
    const me = await jira(() => client.myself.getCurrentUser());
    findings.push(`Signed in to Jira as ${me.displayName ?? me.emailAddress ?? me.accountId}.`);
    const { permissions = {} } = await jira(() =>
      client.permissions.getMyPermissions({ projectKey: String(plugin.config.project_key), permissions: NEEDED_PERMISSIONS.join(',') }),
    );
    const missing = NEEDED_PERMISSIONS.filter((p) => !(permissions as Record<string, { havePermission?: boolean }>)[p]?.havePermission);
    if (missing.length) findings.push(`Missing on ${String(plugin.config.project_key)}: ${missing.join(', ')}.`);
    return { ok: !missing.length, findings };
  } catch (err) {
    findings.push(err instanceof Error ? err.message : String(err));
    return { ok: false, findings };
  }
}

export { ServiceRefused };
