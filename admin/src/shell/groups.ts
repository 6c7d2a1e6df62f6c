import { shell } from '../core/i18n/en.js';

/**
 * Where each screen sits in the side drawer, by resource name.
 *
 * The top level holds a responder's work, most used first (chat, incidents, cases, tasks, signals,
 * on-call, dashboards, search, documents), then one Settings entry. Behind it: spec §2's Settings
 * list grouped as its ancestor groups it (organization, general, incident, case, signal, contact,
 * documentation, knowledge, data), then the rarer work screens and the data catalog, and everything
 * else under "Other", so rarely used tables (OKRs, webhook deliveries) do not crowd the top. Each
 * screen appears once (its first group). An entry whose resource the server does not offer (yet) is
 * left out.
 */
export interface MenuGroup {
  /** Key of the group's title under fw.shell.groups in the i18n messages. */
  key: keyof typeof shell.groups;
  /** Resource names, or `/path` for a page that is not a resource; alternatives where the name is not settled (the first that exists is shown). */
  entries: (string | string[])[];
}

/** Pages that are not resources, always offered: their address and their label. */
export const PAGES: Record<string, string> = {
  '/chat': 'Chat',
  '/dashboards': 'Dashboards',
  '/oncall': 'On-call',
  '/overview': 'Overview',
  '/search/results': 'Search',
  '/admin/settings': 'Organization settings',
  '/admin/content_manager': 'Content manager',
  '/admin/slack': 'Slack',
};

export const MENU_GROUPS: MenuGroup[] = [
  { key: 'menu', entries: ['/chat', 'iaos', 'cases', 'tasks', 'signals', '/oncall', '/dashboards', '/search/results', 'documents'] },
];

/** Rarer work screens and the data catalog: behind Settings, after spec §2's groups. */
const WORK_GROUPS: MenuGroup[] = [
  { key: 'work', entries: ['/overview', 'oncall/pages', 'oncall/handoffs', 'oncall/preshift_preps', 'commits', 'forms', 'feedback', 'servicefeedback'] },
  { key: 'data_catalog', entries: ['data/sources', 'data/queries', 'data/commands', 'weblinks', 'bestpractices'] },
];

/** Spec §2 "Settings", in its order. */
export const SETTINGS_GROUPS: MenuGroup[] = [
  { key: 'administration', entries: ['/admin/settings', '/admin/content_manager', 'site/pages', 'organizations'] },
  { key: 'organization', entries: ['projects', 'users', 'invitations'] },
  { key: 'general', entries: [['plugins/instances', 'plugins'], '/admin/slack', 'notifications', 'search/filters', 'workflows', 'apikeys'] },
  { key: 'incident', entries: ['incident_types', 'incident_priorities', 'incident_severities', 'incident_cost_types', 'cost_models', 'incident_roles'] },
  { key: 'case', entries: ['case_types', 'case_priorities', 'case_severities'] },
  {
    key: 'signal',
    entries: [
      ['signals/definitions', 'signals'],
      ['entity_type', 'entity_types', 'entity/types'],
    ],
  },
  { key: 'contact', entries: ['services', 'individuals', 'teams'] },
  { key: 'oncall', entries: ['oncall/schedules', 'oncall/overrides', 'oncall/escalation_policies'] },
  { key: 'documentation', entries: ['templates', 'references', 'runbooks'] },
  { key: 'knowledge', entries: ['tag_types', 'tags', 'definitions', 'terms'] },
  {
    key: 'data',
    entries: [
      'weblinks',
      'data/commands',
      'data/sources/types',
      'data/sources/environments',
      'data/sources/statuses',
      'data/sources/transports',
      'data/sources/dataFormats',
    ],
  },
];

SETTINGS_GROUPS.push(...WORK_GROUPS);

export const OTHER_GROUP: MenuGroup = { key: 'other', entries: [] };

/**
 * Labels the drawer gives whatever the server calls the entity: people look for "Incidents" and
 * "Cases" (the API's IAO and OCO are internal names).
 */
export const MENU_LABELS: Record<string, string> = {
  iaos: 'Incidents',
  cases: 'Cases',
  tasks: 'Tasks',
  'oncall/handoffs': 'On-call handoffs',
  'oncall/pages': 'Pages',
  'oncall/schedules': 'On-call schedules',
  'oncall/overrides': 'On-call overrides',
  'oncall/escalation_policies': 'Escalation policies',
  'oncall/preshift_preps': 'On-call preshift preps',
  incident_types: 'Incident types',
  incident_priorities: 'Incident priorities',
  incident_severities: 'Incident severities',
  incident_cost_types: 'Incident cost types',
  incident_roles: 'Incident roles',
  case_types: 'Case types',
  case_priorities: 'Case priorities',
  case_severities: 'Case severities',
  users: 'Members',
  'plugins/instances': 'Plugins',
  'site/pages': 'Public pages',
};

const isPage = (entry: string) => entry.startsWith('/');

/**
 * The groups with the entries the server offers (pages always), in order, each entry once: one
 * already placed (in `taken`, or an earlier group) is left out.
 */
export function arrange(groups: MenuGroup[], available: Set<string>, taken: Set<string> = new Set()): { group: MenuGroup; names: string[] }[] {
  const offered = (n: string) => isPage(n) || available.has(n);
  const placed = new Set(taken);
  return groups
    .map((group) => ({
      group,
      names: group.entries
        .map((e) => (Array.isArray(e) ? e.find(offered) : offered(e) ? e : undefined))
        .filter((n): n is string => !!n && !placed.has(n))
        .map((n) => (placed.add(n), n)),
    }))
    .filter((g) => g.names.length);
}

/** Resources that no group names (they go under "Other" in the settings pane). */
export function others(available: Iterable<string>): string[] {
  const named = new Set([...MENU_GROUPS, ...SETTINGS_GROUPS].flatMap((g) => g.entries.flat()));
  return [...available].filter((name) => !named.has(name));
}

/** A group's English title (the menu itself translates the key). */
export const titleOf = (group: MenuGroup) => shell.groups[group.key];

/** Every group title, menu routes first, then the settings pane, then Other. */
export const GROUP_ORDER = [...MENU_GROUPS, ...SETTINGS_GROUPS, OTHER_GROUP].map(titleOf);

/** The title of the first group that names a resource. */
export const groupOf = (resource: string) => titleOf([...MENU_GROUPS, ...SETTINGS_GROUPS].find((g) => g.entries.flat().includes(resource)) ?? OTHER_GROUP);

/** True when a resource is an entry of the settings pane (or of its Other group). */
export const inSettings = (resource: string) => !MENU_GROUPS.some((g) => g.entries.flat().includes(resource));
