import { useEffect, useState } from 'react';
import { dataProvider } from '../core/dataProvider.js';

export interface SiteSettings {
  contact_email: string | null;
  contact_phone: string | null;
  slack_url: string | null;
  slack_install_url: string | null;
  demo_url: string | null;
  oncall_url: string | null;
  dfir_url: string | null;
  status_page_url: string | null;
  temporary_message: string | null;
}

export interface SitePage {
  id: number;
  kind: 'terms' | 'privacy' | 'faq' | 'blog';
  title: string;
  body: string;
  created_at: string;
  updated_at: string;
}

export interface Site {
  organization: string;
  settings: SiteSettings;
  pages: SitePage[];
}

let cached: Promise<Site> | null = null;

/** The organization's public site (GET /site, no sign-in), fetched once a page load unless `fresh`. */
export function loadSite(fresh = false): Promise<Site> {
  if (!cached || fresh) {
    // Public pages are outside <Admin> (no react-admin context): the data provider itself.
    cached = dataProvider.view<Site>('site', { anonymous: true }).then(({ data }) => data);
    cached.catch(() => (cached = null));
  }
  return cached;
}

export function useSite(): { site: Site | null; failed: boolean } {
  const [site, setSite] = useState<Site | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let live = true;
    loadSite().then(
      (s) => live && setSite(s),
      () => live && setFailed(true),
    );
    return () => {
      live = false;
    };
  }, []);
  return { site, failed };
}
