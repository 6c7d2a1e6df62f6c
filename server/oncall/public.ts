import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { systemActor, type RequestContext } from '../core/context.js';
import { httpError } from '../core/errors.js';
import { runInTenant } from '../core/tenancy.js';
import { shiftsToIcal } from './ical.js';
import { acknowledgePage, resolvePage } from './pages.js';
import { hashToken } from './delivery.js';
import { oncallPages, oncallPageTokens, oncallPersonFeeds, oncallSchedules } from './tables.js';
import { scheduleShifts } from './whos-on.js';

/**
 * What works without signing in: the acknowledge and resolve links of page messages, and iCal feeds.
 * Each is opened by a secret in its URL. A link's GET only shows a button (mail scanners open links);
 * the POST uses it up.
 */
const DAY = 86_400_000;
/** A feed shows two weeks back and eight ahead. */
const FEED_BACK_DAYS = 14;
const FEED_AHEAD_DAYS = 56;
const pub = { access: 'public' as const };
const tokenParam = z.object({ token: z.string().min(10).max(100) });

const escapeHtml = (s: string) => s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
const html = (reply: FastifyReply, status: number, title: string, body: string) =>
  reply
    .status(status)
    .type('text/html; charset=utf-8')
    .send(
      `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(title)}</title></head><body style="font-family:sans-serif;max-width:36em;margin:3em auto"><h1>${escapeHtml(title)}</h1>${body}</body></html>`,
    );

const asOrg = <T>(req: FastifyRequest, fn: (ctx: RequestContext) => Promise<T>) =>
  runInTenant(req.server.db, req.server.config, systemActor({ orgId: req.org.id, orgSlug: req.org.slug }), fn);

async function tokenRow(ctx: RequestContext, token: string) {
  const [row] = await ctx.tx
    .select({ t: oncallPageTokens, page: oncallPages })
    .from(oncallPageTokens)
    .innerJoin(oncallPages, and(eq(oncallPages.organization_id, oncallPageTokens.organization_id), eq(oncallPages.id, oncallPageTokens.page_id)))
    .where(and(eq(oncallPageTokens.organization_id, ctx.orgId), eq(oncallPageTokens.token_hash, hashToken(token))));
  return row;
}

const gone = (reply: FastifyReply) =>
  html(reply, 410, 'This link no longer works', '<p>It was used already or has expired. Open Firewatch to see the page.</p>');

export function registerPublicOncallRoutes(scope: FastifyInstance) {
  // A link's form posts an empty urlencoded body; only these routes read one.
  scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, _body, done) => done(null, {}));
  scope.get('/oncall/respond/:token', { config: pub, schema: { hide: true, params: tokenParam } }, async (req, reply) => {
    const { token } = req.params as z.infer<typeof tokenParam>;
    const row = await asOrg(req, (ctx) => tokenRow(ctx, token));
    if (!row || row.t.used_at || row.t.expires_at < new Date()) return gone(reply);
    const verb = row.t.action === 'acknowledge' ? 'Acknowledge' : 'Resolve';
    return html(
      reply,
      200,
      `${verb} page`,
      `<p><strong>${escapeHtml(row.page.title)}</strong> (now ${row.page.state})</p><form method="post"><button type="submit" style="font-size:1.2em;padding:.5em 1em">${verb}</button></form>`,
    );
  });
  scope.post('/oncall/respond/:token', { config: pub, schema: { hide: true, params: tokenParam } }, async (req, reply) => {
    const { token } = req.params as z.infer<typeof tokenParam>;
    const done = await asOrg(req, async (ctx) => {
      const [used] = await ctx.tx
        .update(oncallPageTokens)
        .set({ used_at: sql`now()` })
        .where(
          and(
            eq(oncallPageTokens.organization_id, ctx.orgId),
            eq(oncallPageTokens.token_hash, hashToken(token)),
            isNull(oncallPageTokens.used_at),
            gt(oncallPageTokens.expires_at, sql`now()`),
          ),
        )
        .returning();
      if (!used) return null;
      const act = used.action === 'acknowledge' ? acknowledgePage : resolvePage;
      return { action: used.action, ...(await act(ctx, used.page_id, used.email)) };
    });
    if (!done) return gone(reply);
    const word = done.action === 'acknowledge' ? 'Acknowledged' : 'Resolved';
    return html(
      reply,
      200,
      done.changed ? word : `Already ${done.page.state}`,
      `<p>${escapeHtml(done.page.title)}: ${done.page.state}${done.page.acknowledged_by ? ` by ${escapeHtml(done.page.acknowledged_by)}` : ''}.</p>`,
    );
  });
  scope.get(
    '/oncall/feeds/:file',
    { config: pub, schema: { hide: true, params: z.object({ file: z.string().regex(/^[A-Za-z0-9_-]{10,100}\.ics$/) }) } },
    async (req, reply) => {
      const token = (req.params as { file: string }).file.slice(0, -4);
      const from = new Date(Date.now() - FEED_BACK_DAYS * DAY);
      const to = new Date(Date.now() + FEED_AHEAD_DAYS * DAY);
      const body = await asOrg(req, async (ctx) => {
        const [schedule] = await ctx.tx
          .select()
          .from(oncallSchedules)
          .where(and(eq(oncallSchedules.organization_id, ctx.orgId), eq(oncallSchedules.feed_token, token)));
        if (schedule) return shiftsToIcal(schedule.name, await scheduleShifts(ctx, schedule, from, to), `s${schedule.id}`);
        const [person] = await ctx.tx
          .select()
          .from(oncallPersonFeeds)
          .where(and(eq(oncallPersonFeeds.organization_id, ctx.orgId), eq(oncallPersonFeeds.token, token)));
        if (!person) return null;
        const schedules = await ctx.tx.select().from(oncallSchedules).where(eq(oncallSchedules.organization_id, ctx.orgId));
        const mine = [];
        for (const s of schedules)
          mine.push(...(await scheduleShifts(ctx, s, from, to)).filter((x) => x.email === person.email).map((x) => ({ ...x, schedule: s.name })));
        return shiftsToIcal(`On call: ${person.email}`, mine, `p`);
      });
      if (!body) {
        const { statusCode, detail } = httpError(404, 'No feed at this address.', 'not_found');
        return reply.status(statusCode).send({ detail });
      }
      return reply.type('text/calendar; charset=utf-8').header('cache-control', 'private, max-age=300').send(body);
    },
  );
}
