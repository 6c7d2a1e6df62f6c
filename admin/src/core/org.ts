/**
 * Every screen lives under /{organization}/. The slug comes from the address when it has one (a
 * bookmark or a shared link) and is remembered in localStorage, as the spec's `organization` key.
 */
export const RESERVED = new Set(['', '404', '500', 'implicit', 'legal', 'help', 'blog', 'api', 'assets']);
export const SLUG = /^[a-z0-9][a-z0-9-]*$/;

export const storage = {
  get token() {
    return localStorage.getItem('token');
  },
  set token(value: string | null) {
    if (value) localStorage.setItem('token', value);
    else localStorage.removeItem('token');
  },
};

/** Picks the organization for this page load and makes sure the address starts with it. */
export function resolveOrganization(): string {
  const first = window.location.pathname.split('/')[1] ?? '';
  if (!RESERVED.has(first) && SLUG.test(first)) {
    localStorage.setItem('organization', first);
    return first;
  }
  const stored = localStorage.getItem('organization');
  const org = stored && SLUG.test(stored) ? stored : 'default';
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
