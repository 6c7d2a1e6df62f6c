import { useEffect, useState, type ReactNode } from 'react';
import { useLocation } from 'react-router-dom';
import { organization, storage } from '../core/org.js';
import { dataProvider } from '../core/dataProvider.js';
import { SPEC_ROUTE_ALIASES } from '../core/specRoutes.js';
import { MENU_GROUPS, SETTINGS_GROUPS } from './groups.js';

/**
 * The app's own screens under /{organization}/ that are not resource lists (App.tsx's custom routes
 * and the sign-in page): keep in step with App.tsx.
 */
const PAGES = [
  'chat',
  'auth/login',
  'iaos',
  'cases',
  'search/results',
  'overview',
  'upgrade',
  'admin/settings',
  'admin/content_manager',
  'admin/slack',
  'dashboards',
  'data/sources',
];

/** Screens named on the client (pages, aliases, the drawer's entries) plus the server's resource lists. */
function roots(served: string[]): string[] {
  const drawer = [...MENU_GROUPS, ...SETTINGS_GROUPS].flatMap((g) => g.entries.flat()).map((e) => e.replace(/^\//, ''));
  return [...PAGES, ...Object.keys(SPEC_ROUTE_ALIASES), ...drawer, ...served];
}

/** True when `pathname` (under /{organization}/) is one of the app's screens or below one (an id, a tab). */
export function isKnownAddress(pathname: string, served: string[]): boolean {
  const path = pathname.replace(new RegExp(`^/${organization}/?`), '').replace(/\/+$/, '');
  return path === '' || roots(served).some((root) => path === root || path.startsWith(`${root}/`));
}

let screens: Promise<string[] | null> | null = null;
/** The server's resource lists, asked once; null when it cannot be reached (then nothing is called unknown). */
function servedScreens(): Promise<string[] | null> {
  // Asked before <Admin> is rendered (no react-admin context): the data provider itself.
  screens ??= dataProvider.view<{ screens: string[] }>('site', { path: 'screens', anonymous: true, globalErrors: false }).then(
    ({ data }) => data.screens,
    () => {
      screens = null;
      return null;
    },
  );
  return screens;
}

/**
 * Spec §2: any other path shows a not-found page. Signed in, react-admin's catch-all does that inside
 * the shell; signed out, its sign-in check would send every address to the landing page first, so an
 * address that is no screen of the app gets `notFound` here instead, at the address typed.
 */
export function SignedOutUnknown({ children, notFound }: { children: ReactNode; notFound: ReactNode }) {
  const { pathname } = useLocation();
  const signedIn = !!storage.token;
  const [answer, setAnswer] = useState<{ pathname: string; known: boolean } | null>(null);
  useEffect(() => {
    if (signedIn) return;
    let current = true;
    void servedScreens().then((served) => current && setAnswer({ pathname, known: served === null || isKnownAddress(pathname, served) }));
    return () => {
      current = false;
    };
  }, [pathname, signedIn]);
  if (signedIn) return children;
  if (answer?.pathname !== pathname) return null;
  return answer.known ? children : notFound;
}
