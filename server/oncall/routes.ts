import { randomBytes } from 'node:crypto';
import { and, asc, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { invalid, notFound } from '../core/errors.js';
import { inTenant } from '../core/tenancy.js';
import type { RequestContext } from '../core/context.js';
import { idParam } from '../engine/crud.js';
import { answers, arrayOf, bool, int, nullableStr, objectOf, str } from '../engine/answers.js';
import { email, ref, requiredText, text } from '../engine/fields.js';
import { actorOf, callerEmail } from '../core/caller.js';
import { teams } from '../people/tables.js';
import { oncallPages, oncallPersonFeeds, oncallSchedules, oncallTeamMembers } from './tables.js';
import { loadCase } from '../cases/scope.js';
import { loadIncident } from '../incidents/scope.js';
import { linkedRows } from '../engine/visibility.js';
import { loadSchedule, scheduleOnCall, scheduleShifts } from './whos-on.js';
import { acknowledgePage, loadService, providerFor, resolvePage, triggerPage } from './pages.js';
import { capabilityOf } from '../plugins/registry.js';
import builtin from './integrations/firewatch-oncall.js';
import { scheduleHandoffPrefill } from './preshift.js';

const tags = ['On-call'];
const typed = (scope: FastifyInstance) => scope.withTypeProvider<ZodTypeProvider>();
type App = ReturnType<typeof typed>;
const DAY = 86_400_000;
/** The longest window a calendar asks for at once. */
const MAX_DAYS = 92;
const atQuery = z.object({ at: z.iso.datetime({ offset: true }).optional() });
const shiftAnswer = objectOf({ start: str, end: str, email: str, source: { oneOf: [int, str] } });
const shiftOut = (s: { start: Date; end: Date; email: string; source: number | 'override' }) => ({
  ...s,
  start: s.start.toISOString(),
  end: s.end.toISOString(),
});
const pageBody = z
  .strictObject({
    title: requiredText(500),
    details: text(10_000),
    key: z.string().trim().min(1).max(500).optional(),
    service_id: ref().optional(),
    escalation_policy_id: ref().optional(),
    email: email().optional(),
    incident_id: ref().optional(),
    case_id: ref().optional(),
  })
  .refine((b) => [b.service_id, b.escalation_policy_id, b.email].filter((x) => x !== undefined).length === 1, {
    message: 'Page one of: a service, an escalation policy, or a person (email)',
    path: ['service_id'],
  });

export const feedUrl = (ctx: RequestContext, token: string) =>
  `${ctx.config.PUBLIC_URL.replace(/\/+$/, '')}/api/v1/${encodeURIComponent(ctx.orgSlug)}/oncall/feeds/${token}.ics`;

/** Who is on call for a service: through its on-call plugin (PagerDuty), else Firewatch's own policies. */
async function serviceOnCall(ctx: RequestContext, id: number, at: Date) {
  const service = await loadService(ctx, id);
  const plugin = await providerFor(ctx, service, service.project_id);
  const who = plugin ?? { id: 0, slug: builtin.slug, title: builtin.title, enabled: true, project_id: null, config: {}, outbound: ctx.config };
  const people = await capabilityOf(who, 'who_is_on_call')!(who, { service, at }, { tenant: (fn) => fn(ctx) });
  return { service: { id: service.id, name: service.name, type: service.type }, provider: who.slug, at: at.toISOString(), oncall: people };
}

export function registerOncallRoutes(scope: FastifyInstance) {
  const app = typed(scope);
  app.get(
    '/oncall/schedules/:id/oncall',
    {
      schema: {
        tags,
        summary: 'Who is on call on a schedule now, or at `at`',
        params: idParam,
        querystring: atQuery,
        ...answers(200, objectOf({ at: str, oncall: shiftAnswer })),
      },
    },
    (req) =>
      inTenant(
        req,
        async (ctx) => {
          const at = req.query.at ? new Date(req.query.at) : new Date();
          const who = await scheduleOnCall(ctx, await loadSchedule(ctx, req.params.id), at);
          return { at: at.toISOString(), oncall: who ? shiftOut(who) : null };
        },
        { readOnly: true },
      ),
  );
  app.get(
    '/oncall/schedules/:id/shifts',
    {
      schema: {
        tags,
        summary: `The final schedule between from and to (at most ${MAX_DAYS} days; default the next four weeks)`,
        params: idParam,
        querystring: z.object({ from: z.iso.datetime({ offset: true }).optional(), to: z.iso.datetime({ offset: true }).optional() }),
        ...answers(200, objectOf({ from: str, to: str, time_zone: str, items: arrayOf(shiftAnswer) })),
      },
    },
    (req) =>
      inTenant(
        req,
        async (ctx) => {
          const from = req.query.from ? new Date(req.query.from) : new Date();
          const to = req.query.to ? new Date(req.query.to) : new Date(from.getTime() + 28 * DAY);
          if (to <= from || to.getTime() - from.getTime() > MAX_DAYS * DAY)
            throw invalid(`'to' must be after 'from', at most ${MAX_DAYS} days later.`, ['querystring', 'to']);
          const schedule = await loadSchedule(ctx, req.params.id);
          const items = (await scheduleShifts(ctx, schedule, from, to)).map(shiftOut);
          return { from: from.toISOString(), to: to.toISOString(), time_zone: schedule.time_zone, items };
        },
        { readOnly: true },
      ),
  );
  app.get(
    '/oncall/now',
    {
      schema: {
        tags,
        summary: 'Who is on call on every schedule now, or at `at`',
        querystring: atQuery,
        ...answers(200, objectOf({ at: str, items: arrayOf(objectOf({ schedule_id: int, name: str, oncall: shiftAnswer })) })),
      },
    },
    (req) =>
      inTenant(
        req,
        async (ctx) => {
          const at = req.query.at ? new Date(req.query.at) : new Date();
          const schedules = await ctx.tx
            .select()
            .from(oncallSchedules)
            .where(eq(oncallSchedules.organization_id, ctx.orgId))
            .orderBy(asc(oncallSchedules.name))
            .limit(200);
          const items = [];
          for (const s of schedules) {
            const who = await scheduleOnCall(ctx, s, at);
            items.push({ schedule_id: s.id, name: s.name, oncall: who ? shiftOut(who) : null });
          }
          return { at: at.toISOString(), items };
        },
        { readOnly: true },
      ),
  );
  app.get(
    '/oncall/services/:id/oncall',
    {
      schema: {
        tags,
        summary: 'Who is on call for a service now, or at `at` (through its on-call plugin)',
        params: idParam,
        querystring: atQuery,
        ...answers(
          200,
          objectOf({ service: objectOf({ id: int, name: str, type: str }), provider: str, at: str, oncall: arrayOf(objectOf({ email: str, level: int })) }),
        ),
      },
    },
    (req) => inTenant(req, (ctx) => serviceOnCall(ctx, req.params.id, req.query.at ? new Date(req.query.at) : new Date()), { readOnly: true }),
  );
  registerPageRoutes(app);
  registerTeamAndFeedRoutes(app);
}

/** A page of a restricted incident or case the caller takes no part in is not found (as in the pages' list). */
async function visiblePage(ctx: RequestContext, id: number) {
  const [page] = await ctx.tx
    .select({ id: oncallPages.id })
    .from(oncallPages)
    .where(and(eq(oncallPages.organization_id, ctx.orgId), eq(oncallPages.id, id), linkedRows(ctx, oncallPages)));
  if (!page) throw notFound('Page', id);
}

function registerPageRoutes(app: App) {
  const pageAnswer = objectOf({ id: int, created: bool });
  app.post(
    '/oncall/pages',
    { schema: { tags, summary: 'Page a service, a policy or a person (idempotent by key)', body: pageBody, ...answers(201, pageAnswer) } },
    async (req, reply) => {
      const body = req.body;
      const result = await inTenant(req, async (ctx) => {
        // A restricted incident or case the caller takes no part in is not found, as on its own routes.
        if (body.incident_id) await loadIncident(ctx, body.incident_id);
        if (body.case_id) await loadCase(ctx, body.case_id);
        return triggerPage(ctx, { ...body, key: body.key ?? `manual-${randomBytes(9).toString('base64url')}`, by: await callerEmail(ctx) });
      });
      return reply.status(result.created ? 201 : 200).send(result);
    },
  );
  for (const action of ['acknowledge', 'resolve'] as const)
    app.post(
      `/oncall/pages/:id/${action}`,
      {
        schema: {
          tags,
          summary: `${action === 'acknowledge' ? 'Acknowledge' : 'Resolve'} a page`,
          params: idParam,
          ...answers(200, objectOf({ id: int, state: str, changed: bool })),
        },
      },
      (req) =>
        inTenant(req, async (ctx) => {
          await visiblePage(ctx, req.params.id);
          const by = await actorOf(ctx);
          const { page, changed } = await (action === 'acknowledge' ? acknowledgePage : resolvePage)(ctx, req.params.id, by);
          return { id: page.id, state: page.state, changed };
        }),
    );
  app.get(
    '/oncall/handoffs/prefill_from_schedule',
    {
      schema: {
        tags,
        summary: "A handoff prefilled from a schedule's shift change: the current person hands over to the next",
        querystring: z.object({ schedule_id: z.coerce.number().int().positive(), at: z.iso.datetime({ offset: true }).optional() }),
        ...answers(200, objectOf({ handover_from: str, handover_to: str, start_time: str, end_time: str, shift_type: nullableStr })),
      },
    },
    (req) => inTenant(req, (ctx) => scheduleHandoffPrefill(ctx, req.query.schedule_id, req.query.at ? new Date(req.query.at) : new Date()), { readOnly: true }),
  );
}

/** The team's id when it is one of this organization's teams; 404 otherwise. */
async function teamOf(ctx: RequestContext, id: number) {
  const [team] = await ctx.tx
    .select({ id: teams.id })
    .from(teams)
    .where(and(eq(teams.organization_id, ctx.orgId), eq(teams.id, id)));
  if (!team) throw notFound('Team', id);
  return team.id;
}

function registerTeamAndFeedRoutes(app: App) {
  const members = objectOf({ team_id: int, emails: arrayOf(str) });
  const read = async (ctx: RequestContext, teamId: number) => ({
    team_id: await teamOf(ctx, teamId),
    emails: (
      await ctx.tx
        .select({ email: oncallTeamMembers.email })
        .from(oncallTeamMembers)
        .where(and(eq(oncallTeamMembers.organization_id, ctx.orgId), eq(oncallTeamMembers.team_id, teamId)))
        .orderBy(asc(oncallTeamMembers.email))
    ).map((r) => r.email),
  });
  app.get(
    '/oncall/teams/:id/members',
    { schema: { tags, summary: "A team's members, for paging all of a team", params: idParam, ...answers(200, members) } },
    (req) => inTenant(req, (ctx) => read(ctx, req.params.id), { readOnly: true }),
  );
  app.put(
    '/oncall/teams/:id/members',
    {
      schema: {
        tags,
        summary: "Replace a team's members",
        params: idParam,
        body: z.strictObject({ emails: z.array(email()).max(500) }),
        ...answers(200, members),
      },
    },
    (req) =>
      inTenant(req, async (ctx) => {
        await teamOf(ctx, req.params.id);
        await ctx.tx.delete(oncallTeamMembers).where(and(eq(oncallTeamMembers.organization_id, ctx.orgId), eq(oncallTeamMembers.team_id, req.params.id)));
        const emails = [...new Set(req.body.emails)];
        if (emails.length) await ctx.tx.insert(oncallTeamMembers).values(emails.map((e) => ({ organization_id: ctx.orgId, team_id: req.params.id, email: e })));
        return read(ctx, req.params.id);
      }),
  );
  app.post(
    '/oncall/feeds/me',
    {
      schema: {
        tags,
        summary: 'My own iCal feed URL (every schedule I am on); `rotate` makes a new secret',
        body: z.strictObject({ rotate: z.boolean().optional() }).optional(),
        ...answers(200, objectOf({ url: str })),
      },
    },
    (req) =>
      inTenant(req, async (ctx) => {
        const me = await callerEmail(ctx);
        if (!me) throw invalid('An API key has no person: sign in to get your feed.', ['body']);
        const token = randomBytes(18).toString('base64url');
        const [row] = await ctx.tx
          .insert(oncallPersonFeeds)
          .values({ organization_id: ctx.orgId, email: me, token })
          .onConflictDoUpdate({ target: [oncallPersonFeeds.organization_id, oncallPersonFeeds.email], set: req.body?.rotate ? { token } : { email: me } })
          .returning();
        return { url: feedUrl(ctx, row!.token) };
      }),
  );
}
