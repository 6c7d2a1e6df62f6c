import { useGetList } from 'react-admin';
import { organization } from '../core/org.js';

export interface Organization {
  id: number;
  name: string;
  slug: string;
  description: string;
  plan: 'free' | 'pro' | 'team_pro';
  banner_text: string | null;
  banner_color: string;
  banner_enabled: boolean;
  free_trial_end: string | null;
}

/** Every organization the user belongs to (50 a page, by name, as the spec says), and the current one. */
export function useOrganizations() {
  const { data, isPending } = useGetList<Organization>('organizations', { pagination: { page: 1, perPage: 50 }, sort: { field: 'name', order: 'ASC' } });
  return { organizations: data ?? [], current: data?.find((o) => o.slug === organization), isPending };
}

/** Trial days left, rounded up; null when not on the free plan. */
export function trialDaysLeft(org: Organization, now = Date.now()): number | null {
  if (org.plan !== 'free' || !org.free_trial_end) return null;
  return Math.max(0, Math.ceil((new Date(org.free_trial_end).getTime() - now) / 86_400_000));
}
