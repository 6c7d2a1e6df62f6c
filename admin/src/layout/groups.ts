import { shell } from '../i18n/en.js';

/**
 * Where each screen sits in the side drawer, by resource name, in the order of spec §2.
 *
 * The drawer holds the menu routes ("Lists with edit sheets", "Data catalog"), then the settings
 * pane: the spec's Settings list (projects, members, and under projects/ the rest), grouped as its
 * ancestor groups it (organization, general, incident, case, signal, contact, documentation,
 * knowledge, data), each group in the spec's order. An entry whose resource the server does not
 * offer (yet) is left out; a resource named nowhere here goes to "Other".
 */
export interface MenuGroup {
  /** Key of the group's title under fw.shell.groups in the i18n messages. */
  key: keyof typeof shell.groups;
  /** Resource names; where the name is not settled, the alternatives (the first that exists is shown). */
  entries: (string | string[])[];
}

/** Spec §2 "Lists with edit sheets" and "Data catalog". */
export const MENU_GROUPS: MenuGroup[] = [
  { key: 'lists', entries: ['iaos', 'cases', 'signals', 'commits', 'oncall/handoffs', 'oncall/preshift_preps', 'tasks', 'forms', 'feedback', 'servicefeedback'] },
  { key: 'data_catalog', entries: ['data/sources', 'data/queries', 'data/commands', 'weblinks', 'bestpractices'] },
];

/** Spec §2 "Settings", in its order. */
export const SETTINGS_GROUPS: MenuGroup[] = [
  { key: 'organization', entries: ['projects', 'users', 'invitations'] },
  { key: 'general', entries: [['plugins/instances', 'plugins'], 'notifications', 'search/filters', 'workflows', 'apikeys'] },
  { key: 'incident', entries: ['incident_types', 'incident_priorities', 'incident_severities', 'incident_cost_types', 'cost_models', 'incident_roles'] },
  { key: 'case', entries: ['case_types', 'case_priorities', 'case_severities'] },
  { key: 'signal', entries: [['signals/definitions', 'signals'], ['entity_type', 'entity_types', 'entity/types']] },
  { key: 'contact', entries: ['services', 'individuals', 'teams'] },
  { key: 'documentation', entries: ['templates', 'references', 'runbooks'] },
  { key: 'knowledge', entries: ['tag_types', 'tags', 'definitions', 'terms'] },
  {
    key: 'data',
    entries: ['weblinks', 'data/commands', 'data/sources/types', 'data/sources/environments', 'data/sources/statuses', 'data/sources/transports', 'data/sources/dataFormats'],
  },
];

export const OTHER_GROUP: MenuGroup = { key: 'other', entries: [] };

/** The groups with the entries the server offers, each entry once per group, in order. */
export function arrange(groups: MenuGroup[], available: Set<string>): { group: MenuGroup; names: string[] }[] {
  return groups
    .map((group) => ({ group, names: group.entries.map((e) => (Array.isArray(e) ? e.find((n) => available.has(n)) : available.has(e) ? e : undefined)).filter((n): n is string => !!n) }))
    .filter((g) => g.names.length);
}

/** Resources that neither the menu routes nor the settings pane name (organizations, OKRs, ...). */
export function others(available: Iterable<string>): string[] {
  const named = new Set([...MENU_GROUPS, ...SETTINGS_GROUPS].flatMap((g) => g.entries.flat()));
  return [...available].filter((name) => !named.has(name));
}

/** A group's English title (the menu itself translates the key). */
export const titleOf = (group: MenuGroup) => shell.groups[group.key];

/** Every group title, menu routes first, then the settings pane, then Other. */
export const GROUP_ORDER = [...MENU_GROUPS, ...SETTINGS_GROUPS, OTHER_GROUP].map(titleOf);

/** The title of the first group that names a resource (commands and weblinks are in the data catalog and in settings). */
export const groupOf = (resource: string) => titleOf([...MENU_GROUPS, ...SETTINGS_GROUPS].find((g) => g.entries.flat().includes(resource)) ?? OTHER_GROUP);

/** True when a resource is an entry of the settings pane. */
export const inSettings = (resource: string) => SETTINGS_GROUPS.some((g) => g.entries.flat().includes(resource));
