import { and, asc, desc, eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { sitePages, siteSettings } from './tables.js';
import { withTenant } from '../core/db/tenant.js';
import { forbidden } from '../core/errors.js';
import { atLeast } from '../core/context.js';
import { inTenant } from '../core/tenancy.js';
import { email, text, url } from '../engine/fields.js';
import type { Tx } from '../core/db/client.js';
import { answers, arrayOf, int, nullableStr, objectOf, str } from '../engine/answers.js';

const tags = ['Public site'];
const SETTINGS_FIELDS = [
  'contact_email',
  'contact_phone',
  'slack_url',
  'slack_install_url',
  'demo_url',
  'oncall_url',
  'dfir_url',
  'status_page_url',
  'temporary_message',
] as const;
type SiteSettings = Record<(typeof SETTINGS_FIELDS)[number], string | null>;

const settingsBody = z.strictObject({
  contact_email: email().nullish(),
  contact_phone: z
    .string()
    .trim()
    .max(40)
    .regex(/^[+0-9 ().-]*$/, 'Must be a phone number')
    .nullish(),
  slack_url: url(),
  slack_install_url: url(),
  demo_url: url(),
  oncall_url: url(),
  dfir_url: url(),
  status_page_url: url(),
  temporary_message: text(500),
});

const settingsAnswer = objectOf(Object.fromEntries(SETTINGS_FIELDS.map((f) => [f, nullableStr])));
const sitePage = objectOf({ id: int, kind: str, title: str, body: str, created_at: str, updated_at: str });

const empty = Object.fromEntries(SETTINGS_FIELDS.map((f) => [f, null])) as SiteSettings;

async function readSettings(tx: Tx, orgId: number): Promise<SiteSettings> {
  const [row] = await tx.select().from(siteSettings).where(eq(siteSettings.organization_id, orgId));
  return row ? (Object.fromEntries(SETTINGS_FIELDS.map((f) => [f, row[f]])) as SiteSettings) : empty;
}

/**
 * The organization's public site: what visitors see on the legal, FAQ and blog pages, the contact
 * menu and the sibling product links (GET, no sign-in), and the settings an Admin edits (PUT).
 */
export function registerSiteRoutes(scope: FastifyInstance, screens: string[] = []) {
  const app = scope.withTypeProvider<ZodTypeProvider>();

  // The admin app tells a signed-out visitor's unknown address (the not-found page) from a screen
  // that needs a sign-in (the landing page) by these; they are the API's paths, public in its OpenAPI.
  const listed = { screens: [...new Set(screens)].sort() };
  app.get(
    '/site/screens',
    {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'The addresses of the screens behind the sign-in (resource lists), for telling them from unknown ones',
        ...answers(200, objectOf({ screens: arrayOf(str) })),
      },
    },
    async () => listed,
  );

  app.get(
    '/site',
    {
      config: { access: 'public' },
      schema: {
        tags,
        summary: "The organization's public pages (published ones) and its contact and product links",
        ...answers(200, objectOf({ organization: str, settings: settingsAnswer, pages: arrayOf(sitePage) })),
      },
    },
    async (req) =>
      withTenant(scope.db, { orgId: req.org.id, userId: null }, async (tx) => {
        const pages = await tx
          .select({
            id: sitePages.id,
            kind: sitePages.kind,
            title: sitePages.title,
            body: sitePages.body,
            created_at: sitePages.created_at,
            updated_at: sitePages.updated_at,
          })
          .from(sitePages)
          .where(and(eq(sitePages.organization_id, req.org.id), eq(sitePages.published, true)))
          .orderBy(desc(sitePages.created_at), asc(sitePages.id))
          .limit(500);
        return { organization: req.org.slug, settings: await readSettings(tx, req.org.id), pages };
      }),
  );

  app.put(
    '/site/settings',
    {
      schema: {
        tags,
        summary: 'Change the contact menu, product links and temporary message (Admin and above)',
        body: settingsBody,
        ...answers(200, settingsAnswer),
      },
    },
    async (req) =>
      inTenant(req, async (ctx) => {
        if (!atLeast(ctx.role, 'Admin')) throw forbidden('Only an Admin or above may change the organization settings.');
        const values = Object.fromEntries(Object.entries(req.body).map(([k, v]) => [k, v === '' ? null : v]));
        await ctx.tx
          .insert(siteSettings)
          .values({ organization_id: ctx.orgId, ...values })
          .onConflictDoUpdate({ target: siteSettings.organization_id, set: { ...values, updated_at: sql`now()` } });
        return readSettings(ctx.tx, ctx.orgId);
      }),
  );
}
