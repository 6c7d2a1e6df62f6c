import { useEffect } from 'react';
import { Navigate, useLocation } from 'react-router-dom';
import { organization, RESERVED, SLUG } from '../org.js';

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
