import { useEffect } from 'react';
import { Navigate, useLocation } from 'react-router-dom';
import { organization, RESERVED, SLUG, storage } from '../core/org.js';
import type { DetailItem } from '../core/http.js';
import { dataProvider } from '../core/dataProvider.js';

/** The organization everyone has (created at first start): where an unknown one's address leads. */
const FALLBACK = 'default';

/** Whether the server says the address's organization does not exist (404 on its path segment). */
export const isUnknownOrganization = (error: unknown) =>
  (error as { status?: number }).status === 404 &&
  ((error as { body?: { detail?: DetailItem[] } }).body?.detail ?? []).some((d) => d.loc?.[0] === 'path' && d.loc[1] === 'organization');

let checked = false;

/** The stored organization, read as org.ts reads it (default 'default'). */
function stored() {
  const slug = localStorage.getItem('organization');
  return slug && SLUG.test(slug) ? slug : 'default';
}

/**
 * Spec: before each navigation the first path segment is forced to equal the stored organization.
 * Rendered on every location change: when the organization was switched elsewhere (another tab), the
 * app reloads inside it, since the organization is fixed for a page load.
 */
export function OrganizationGuard() {
  const { pathname, search } = useLocation();
  // An organization that does not exist (a mistyped or old link): not an error page but the landing
  // page of the one every installation has, signed out (or the chat, for someone signed in).
  useEffect(() => {
    if (checked || organization === FALLBACK) return;
    checked = true;
    // Rendered outside <Admin> (no react-admin context): the data provider itself.
    dataProvider.view('site', { anonymous: true, globalErrors: false }).catch((error: unknown) => {
      if (!isUnknownOrganization(error)) return;
      localStorage.setItem('organization', FALLBACK);
      window.location.replace(`/${FALLBACK}/${storage.token ? 'chat' : 'landing'}`);
    });
  }, []);
  useEffect(() => {
    const slug = stored();
    if (slug !== organization) window.location.replace(`/${slug}/${pathname.split('/').slice(2).join('/')}${search}`);
  }, [pathname, search]);
  return null;
}

/** For addresses outside /{organization}/: the same path inside it (an unknown first segment is replaced, a reserved one kept). */
export function IntoOrganization() {
  const { pathname, search } = useLocation();
  const [, first = '', ...rest] = pathname.split('/');
  const path = RESERVED.has(first) ? pathname.replace(/^\/+/, '') : rest.join('/');
  return <Navigate to={`/${organization}/${path}${search}`} replace />;
}
