/** Which menu group a resource belongs in, by its API path (spec section 2's settings sub-menus). */
const RULES: [RegExp, string][] = [
  [/^(iaos|incidents|tasks|feedback|servicefeedback|commits)(\/|$)/, 'Operations'],
  [/^cases(\/|$)/, 'Operations'],
  [/^signals(\/|$)/, 'Signals'],
  [/^oncall\//, 'On-call'],
  [/^incident_/, 'Incident settings'],
  [/^case_/, 'Case settings'],
  [/^(data|source)\//, 'Data catalog'],
  [/^(tags|tag_types|terms|definitions|documents|bestpractices|weblinks|runbooks|templates|references)(\/|$)/, 'Knowledge'],
  [/^(services|individuals|teams|entity|entity_type)(\/|$)/, 'People and services'],
  [/^(organizations|users|projects|apikeys|plugins|notifications|workflows|search\/filters|cost_models)(\/|$)/, 'Settings'],
];

export const GROUP_ORDER = ['Operations', 'Signals', 'On-call', 'Data catalog', 'Knowledge', 'People and services', 'Incident settings', 'Case settings', 'Settings', 'Other'];

export const groupOf = (resource: string) => RULES.find(([re]) => re.test(resource))?.[1] ?? 'Other';
