import { and, asc, eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { atLeast, systemActor, type RequestContext } from '../core/context.js';
import { forbidden, invalid, notFound } from '../core/errors.js';
import { inTenant, runInTenant } from '../core/tenancy.js';
import { idParam } from '../engine/crud.js';
import { answers, arrayOf, bool, nullableStr, rowOf, objectOf } from '../engine/answers.js';
import { email } from '../engine/fields.js';
import { callerEmail } from '../core/caller.js';
import { sendMessage } from './delivery.js';
import { CHANNEL_KINDS, oncallChannels } from './tables.js';

/**
 * A person's notification channels and their rules (minutes into a step before each is used). Each
 * person manages their own; an Admin may manage anyone's (`email`).
 */
const tags = ['On-call'];
const ADDRESS: Record<(typeof CHANNEL_KINDS)[number], z.ZodType<string>> = {
  email: email(),
  ntfy: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'An ntfy topic: letters, digits, - and _'),
  sms: z.string().regex(/^\+[1-9]\d{6,14}$/, 'A phone number in E.164 form, like +4915112345678'),
  voice: z.string().regex(/^\+[1-9]\d{6,14}$/, 'A phone number in E.164 form, like +4915112345678'),
  webhook: z.url({ protocol: /^https?$/, error: 'An http(s) URL' }),
  slack: z.string().min(1).max(200),
};
const body = z.strictObject({
  kind: z.enum(CHANNEL_KINDS),
  address: z.string().trim().min(1).max(2000),
  delay_minutes: z.number().int().min(0).max(1440).optional(),
  enabled: z.boolean().optional(),
  email: email().optional(),
});

function checkAddress(kind: (typeof CHANNEL_KINDS)[number], address: string) {
  const parsed = ADDRESS[kind].safeParse(address);
  if (!parsed.success) throw invalid(parsed.error.issues[0]!.message, ['body', 'address']);
}

async function whose(ctx: RequestContext, asked?: string) {
  const me = await callerEmail(ctx);
  if (asked && asked !== me && !atLeast(ctx.role, 'Admin')) throw forbidden("Only an Admin manages another person's channels.");
  const who = asked ?? me;
  if (!who) throw invalid('An API key has no person: name one with email.', ['body', 'email']);
  return who;
}

async function own(ctx: RequestContext, id: number) {
  const [row] = await ctx.tx
    .select()
    .from(oncallChannels)
    .where(and(eq(oncallChannels.organization_id, ctx.orgId), eq(oncallChannels.id, id)));
  if (!row) throw notFound('Channel', id);
  await whose(ctx, row.email);
  return row;
}

export function registerChannelRoutes(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const row = rowOf(oncallChannels);
  app.get(
    '/oncall/channels',
    {
      schema: {
        tags,
        summary: "My notification channels (an Admin: anyone's, by email)",
        querystring: z.object({ email: email().optional() }),
        ...answers(200, objectOf({ items: arrayOf(row) })),
      },
    },
    (req) =>
      inTenant(
        req,
        async (ctx) => {
          const who = await whose(ctx, req.query.email);
          const items = await ctx.tx
            .select()
            .from(oncallChannels)
            .where(and(eq(oncallChannels.organization_id, ctx.orgId), eq(oncallChannels.email, who)))
            .orderBy(asc(oncallChannels.delay_minutes), asc(oncallChannels.id));
          return { items };
        },
        { readOnly: true },
      ),
  );
  app.post('/oncall/channels', { schema: { tags, summary: 'Add a notification channel', body, ...answers(201, row) } }, async (req, reply) => {
    const created = await inTenant(req, async (ctx) => {
      const { email: asked, ...data } = req.body;
      checkAddress(data.kind, data.address);
      const [r] = await ctx.tx
        .insert(oncallChannels)
        .values({ ...data, organization_id: ctx.orgId, email: await whose(ctx, asked) })
        .returning();
      return r!;
    });
    return reply.status(201).send(created);
  });
  app.put(
    '/oncall/channels/:id',
    { schema: { tags, summary: 'Change a notification channel', params: idParam, body: body.partial(), ...answers(200, row) } },
    (req) =>
      inTenant(req, async (ctx) => {
        const current = await own(ctx, req.params.id);
        const { email: _email, ...data } = req.body;
        checkAddress(data.kind ?? current.kind, data.address ?? current.address);
        const [r] = await ctx.tx
          .update(oncallChannels)
          .set({ ...data, updated_at: sql`now()` })
          .where(and(eq(oncallChannels.organization_id, ctx.orgId), eq(oncallChannels.id, current.id)))
          .returning();
        return r!;
      }),
  );
  app.delete(
    '/oncall/channels/:id',
    { schema: { tags, summary: 'Remove a notification channel', params: idParam, ...answers(200, objectOf({ id: { type: 'integer' } })) } },
    (req) =>
      inTenant(req, async (ctx) => {
        const current = await own(ctx, req.params.id);
        await ctx.tx.delete(oncallChannels).where(and(eq(oncallChannels.organization_id, ctx.orgId), eq(oncallChannels.id, current.id)));
        return { id: current.id };
      }),
  );
  app.post(
    '/oncall/channels/:id/test',
    { schema: { tags, summary: 'Send a test message on one of my channels', params: idParam, ...answers(200, objectOf({ ok: bool, error: nullableStr })) } },
    async (req) => {
      const channel = await inTenant(req, (ctx) => own(ctx, req.params.id), { readOnly: true });
      const tenant = <T>(fn: (ctx: RequestContext) => Promise<T>) =>
        runInTenant(req.server.db, req.server.config, systemActor({ orgId: req.org.id, orgSlug: req.org.slug }), fn);
      // Sent with no transaction open: a slow channel holds nothing up.
      const error = await sendMessage(req.server, tenant, {
        kind: channel.kind,
        address: channel.address,
        email: channel.email,
        projectId: null,
        title: 'Firewatch test message',
        text: `This is a test of your ${channel.kind} channel. Nothing to do.`,
        links: null,
        payload: { type: 'channel.test', channel_id: channel.id, email: channel.email },
      }).then(
        () => null,
        (err: Error) => err.message,
      );
      await inTenant(req, (ctx) =>
        ctx.tx
          .update(oncallChannels)
          .set({ last_tested_at: sql`now()` })
          .where(and(eq(oncallChannels.organization_id, ctx.orgId), eq(oncallChannels.id, channel.id))),
      );
      return { ok: !error, error };
    },
  );
}
