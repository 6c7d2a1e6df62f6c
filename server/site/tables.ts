import { boolean, index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { id, organizationId, tenantPolicy, timestamps } from '../core/db/columns.js';
import { organizations } from '../core/db/tables.js';
import { tenantExtras } from '../core/db/mixins.js';

/** What the public pages of spec §2 show: terms, privacy policy, FAQ (one each) and blog posts. */
export const SITE_PAGE_KINDS = ['terms', 'privacy', 'faq', 'blog'] as const;
export type SitePageKind = (typeof SITE_PAGE_KINDS)[number];

/** A public page's text, edited by the organization's Owner; only published ones are shown to visitors. */
export const sitePages = pgTable(
  'site_pages',
  {
    id: id(),
    organization_id: organizationId().references(() => organizations.id, { onDelete: 'cascade' }),
    kind: text().$type<SitePageKind>().notNull(),
    title: text().notNull(),
    /** Plain text; blank lines separate paragraphs. */
    body: text().notNull().default(''),
    published: boolean().notNull().default(true),
    ...timestamps(),
  },
  (t) => [...tenantExtras('site_pages', t), index('site_pages_org_kind_idx').on(t.organization_id, t.kind, t.created_at)],
);

/**
 * One row per organization: how visitors reach it (the contact menu and the Slack install link),
 * the sibling products the toolbar links to, and a temporary message every open page shows.
 */
export const siteSettings = pgTable(
  'site_settings',
  {
    organization_id: integer()
      .primaryKey()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    contact_email: text(),
    contact_phone: text(),
    slack_url: text(),
    slack_install_url: text(),
    demo_url: text(),
    oncall_url: text(),
    dfir_url: text(),
    status_page_url: text(),
    temporary_message: text(),
    ...timestamps(),
  },
  () => [tenantPolicy('site_settings')],
);
