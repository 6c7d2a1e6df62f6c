import { createHmac, timingSafeEqual } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { atLeast, systemActor, type RequestContext } from '../core/context.js';
import { enqueueJob } from '../core/jobs/define.js';
import { httpError, invalid, notFound } from '../core/errors.js';
import { inTenant, runInTenant } from '../core/tenancy.js';
import { answers, arrayOf, bool, messageAnswer, objectOf, str } from '../engine/answers.js';
import { addEvent } from '../timeline/events.js';
import { loadCase } from '../cases/scope.js';
import { loadIncident } from '../incidents/scope.js';
import { capabilityOf, loadPlugin } from '../plugins/registry.js';
import { ticketSyncJob } from './service.js';
import { ticketDeliveries, tickets } from './tables.js';

const tags = ['Ticket'];

/** The text of an Atlassian Document Format node (a comment's body), or the string itself. */
export function adfText(node: unknown): string {
  if (typeof node === 'string') return node;
  const n = node as { text?: string; content?: unknown[] } | null;
  if (!n) return '';
  return n.text ?? (n.content ?? []).map(adfText).join(n.content?.length && (n as { type?: string }).type === 'doc' ? '\n' : '');
}

/** Jira's secret webhooks sign the body: X-Hub-Signature: sha256=<hex HMAC-SHA256(secret, body)>. */
function signatureMatches(secret: unknown, body: string, header: unknown) {
  // No secret (an instance without Jira's webhook) takes no delivery: an empty key would sign anything.
  if (typeof secret !== 'string' || secret.length < 16 || typeof header !== 'string') return false;
  const want = Buffer.from(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
  const got = Buffer.from(header);
  return want.length === got.length && timingSafeEqual(want, got);
}

interface JiraHook {
  webhookEvent?: string;
  timestamp?: number;
  issue?: { key?: string };
  user?: { displayName?: string };
  changelog?: { id?: string; items?: { field?: string; fromString?: string; toString?: string }[] };
  comment?: { id?: string; body?: unknown; author?: { displayName?: string } };
}

/** What the webhook says, for the timeline; null for what Firewatch does not show. */
function hookWords(hook: JiraHook, key: string): string | null {
  if (hook.webhookEvent === 'comment_created' && hook.comment)
    return `Comment on Jira ${key} by ${hook.comment.author?.displayName ?? 'someone'}: ${adfText(hook.comment.body).slice(0, 2000)}`;
  const moved = hook.changelog?.items?.find((i) => i.field === 'status');
  if (hook.webhookEvent === 'jira:issue_updated' && moved)
    return `Jira ${key} moved from ${moved.fromString} to ${moved.toString} by ${hook.user?.displayName ?? 'someone'}`;
  return null;
}

/**
 * What makes a delivery the same one again: Jira's delivery id, unchanged across its retries; without
 * it (Jira Data Center), the change's own id (a changelog's, a comment's).
 */
function deliveryKey(hook: JiraHook, identifier: unknown): string | null {
  if (typeof identifier === 'string' && identifier) return `delivery:${identifier}`;
  const change = hook.changelog?.id ?? hook.comment?.id;
  return change ? `${hook.webhookEvent}:${change}` : null;
}

async function receiveHook(ctx: RequestContext, instanceId: number, body: string, signature: unknown, identifier: unknown) {
  const plugin = await loadPlugin(ctx, instanceId);
  // An unknown instance and a bad signature answer alike, so the route tells nothing to a stranger.
  if (!plugin || !capabilityOf(plugin, 'create_ticket') || !signatureMatches(plugin.config.webhook_secret, body, signature))
    throw httpError(401, 'The webhook signature does not match.', 'unauthorized');
  let hook: JiraHook;
  try {
    hook = JSON.parse(body) as JiraHook;
  } catch {
    throw invalid('The body must be JSON.', ['body']);
  }
  const issueKey = hook.issue?.key;
  const [ticket] = issueKey
    ? await ctx.tx
        .select()
        .from(tickets)
        .where(and(eq(tickets.organization_id, ctx.orgId), eq(tickets.plugin_instance_id, instanceId), eq(tickets.resource_id, issueKey)))
    : [];
  const words = issueKey && hookWords(hook, issueKey);
  if (!ticket || !words) return { accepted: false, duplicate: false };
  const key = deliveryKey(hook, identifier);
  if (key) {
    const [fresh] = await ctx.tx
      .insert(ticketDeliveries)
      .values({ organization_id: ctx.orgId, plugin_instance_id: instanceId, key })
      .onConflictDoNothing()
      .returning({ id: ticketDeliveries.id });
    // Jira retries a delivery it thinks failed: the one taken before already did the work.
    if (!fresh) return { accepted: true, duplicate: true };
  }
  await addEvent(ctx, {
    incident_id: ticket.incident_id,
    case_id: ticket.case_id,
    type: 'Other',
    source: 'Jira',
    description: words,
    details: { event: hook.webhookEvent },
  });
  return { accepted: true, duplicate: false };
}

export function registerTicketRoutes(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();

  // Verified against the raw body Jira signed, so this route reads the body as text.
  void app.register(async (raw) => {
    raw.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, body));
    raw.post(
      '/tickets/jira/:instanceId/webhook',
      {
        config: { access: 'public' },
        schema: {
          tags,
          summary: "Jira's webhook (issue moved, comment added), signed with the plugin's webhook secret",
          ...answers(200, objectOf({ accepted: bool, duplicate: bool })),
        },
      },
      async (req) => {
        const instanceId = Number((req.params as { instanceId: string }).instanceId);
        if (!Number.isInteger(instanceId) || instanceId <= 0) throw invalid('The id must be a whole number.', ['path', 'instanceId']);
        const body = typeof req.body === 'string' ? req.body : '';
        return runInTenant(req.server.db, req.server.config, systemActor({ orgId: req.org.id, orgSlug: req.org.slug }), (ctx) =>
          receiveHook(ctx, instanceId, body, req.headers['x-hub-signature'], req.headers['x-atlassian-webhook-identifier']),
        );
      },
    );
  });

  app.get(
    '/tickets/plugins/:id/health',
    {
      schema: {
        tags,
        summary: "A ticket plugin's health: its credentials and rights checked now, and the last refusals of its tickets",
        params: z.object({ id: z.coerce.number().int().positive() }),
        ...answers(200, objectOf({ ok: bool, findings: arrayOf(str), recent_errors: arrayOf(str) })),
      },
    },
    (req) =>
      inTenant(req, async (ctx) => {
        if (!atLeast(ctx.role, 'Admin')) throw httpError(403, 'Only Admins and above see plugin health.', 'forbidden');
        const plugin = await loadPlugin(ctx, req.params.id);
        const check = plugin && capabilityOf(plugin, 'check_ticket_health');
        if (!plugin || !check) throw notFound('Ticket plugin instance', req.params.id);
        const { ok, findings } = await check(plugin);
        const failing = await ctx.tx
          .select({ error: tickets.error })
          .from(tickets)
          .where(and(eq(tickets.organization_id, ctx.orgId), eq(tickets.plugin_instance_id, plugin.id)))
          .orderBy(tickets.updated_at);
        const recent_errors = [...new Set(failing.map((f) => f.error).filter((e): e is string => !!e))].slice(-5);
        return { ok: ok && !recent_errors.length, findings, recent_errors };
      }),
  );

  app.post(
    '/tickets/sync',
    {
      schema: {
        tags,
        summary: "Opens the incident's or case's ticket if it has none and moves it to its status (in the background)",
        body: z.union([z.strictObject({ incident_id: z.number().int().positive() }), z.strictObject({ case_id: z.number().int().positive() })]),
        ...messageAnswer({}, 202),
      },
    },
    async (req, reply) => {
      await inTenant(req, async (ctx) => {
        if ('incident_id' in req.body) await loadIncident(ctx, req.body.incident_id);
        else await loadCase(ctx, req.body.case_id);
        const data = 'incident_id' in req.body ? { kind: 'incident' as const, id: req.body.incident_id } : { kind: 'case' as const, id: req.body.case_id };
        await enqueueJob(ctx, ticketSyncJob, data);
      });
      return reply.status(202).send({ message: 'The ticket is being synced.' });
    },
  );
}
