/**
 * Every screen lives under /{organization}/. The slug comes from the address when it has one (a
 * bookmark or a shared link) and is remembered in localStorage, as the spec's `organization` key.
 */
export const RESERVED = new Set(['', '404', '500', 'implicit', 'legal', 'help', 'blog', 'api', 'assets']);
export const SLUG = /^[a-z0-9][a-z0-9-]*$/;

function storedOrganization() {
  const stored = localStorage.getItem('organization');
  return stored && SLUG.test(stored) ? stored : 'default';
}

export const storage = {
  get token() {
    return localStorage.getItem('token');
  },
  set token(value: string | null) {
    if (value) localStorage.setItem('token', value);
    else localStorage.removeItem('token');
  },
};

/**
 * First path segments that name a screen, never an organization: `/iaos` is the stored organization's
 * incidents (spec §2: the first segment is forced to the stored organization), not an organization "iaos".
 */
export const SCREENS = new Set(
  (
    'iaos incidents cases tasks chat signals dashboards search overview upgrade admin data oncall handoffs preshift_preps workflows ' +
    'projects members users invitations documents templates runbooks references services teams individuals tags tag_types terms ' +
    'definitions plugins notifications apikeys entity entity_type ados weblinks commits forms feedback servicefeedback okrs ' +
    'incident_types incident_priorities incident_severities incident_cost_types incident_roles case_types case_priorities ' +
    'case_severities cost_models bestpractices site organizations auth landing'
  ).split(' '),
);

/** Picks the organization for this page load and makes sure the address starts with it. */
export function resolveOrganization(): string {
  const first = window.location.pathname.split('/')[1] ?? '';
  if (SCREENS.has(first)) {
    const org = storedOrganization();
    window.history.replaceState(null, '', `/${org}${window.location.pathname}${window.location.search}`);
    return org;
  }
  if (!RESERVED.has(first) && SLUG.test(first)) {
    localStorage.setItem('organization', first);
    return first;
  }
  const org = storedOrganization();
  if (first === '') window.history.replaceState(null, '', `/${org}/${window.location.search}`);
  return org;
}

export const organization = resolveOrganization();

/** `/api/v1/{organization}{path}` */
export const apiUrl = (path: string) => `/api/v1/${organization}${path.startsWith('/') ? path : `/${path}`}`;

/** Reloads the app inside another organization (its token, if the user has one there, still works: one user, many organizations). */
export function switchOrganization(slug: string) {
  localStorage.setItem('organization', slug);
  window.location.assign(`/${slug}/`);
}
