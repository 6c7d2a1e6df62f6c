import type { SocketModeClient } from '@slack/socket-mode';
import { and, eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { organizations } from '../core/db/tables.js';
import { decryptSecret } from '../plugins/secrets.js';
import { pluginInstances } from '../plugins/tables.js';
import { loadPlugin } from '../plugins/registry.js';
import { runInTenant } from '../core/tenancy.js';
import { systemActor } from '../core/context.js';
import { slackFetch } from './client.js';
import { acceptInbound, type InboundKind } from './inbound.js';

// Loaded when the first socket opens: most servers have no Slack app in Socket Mode.
let socketMode: Promise<typeof import('@slack/socket-mode')> | undefined;

const KINDS: Record<string, InboundKind> = { events_api: 'event', slash_commands: 'command', interactive: 'interaction' };
/** How often a process looks for Slack apps switched to Socket Mode (or away from it) meanwhile. */
const RECONCILE_MS = 60_000;

interface Running {
  client: SocketModeClient;
  token: string;
}

/**
 * Socket Mode: every app process opens a connection for each enabled Slack app set to it, so a server
 * behind a firewall needs no public URL. Slack hands each envelope to one connection (and may hand it
 * again); acceptInbound's delivery key makes exactly one process handle it, whichever received it.
 */
export class SlackSockets {
  private running = new Map<number, Running>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private app: FastifyInstance) {}

  start() {
    this.timer = setInterval(() => void this.reconcile().catch((err) => this.app.log.warn({ err }, 'slack socket reconcile failed')), RECONCILE_MS);
    this.timer.unref();
    return this.reconcile();
  }

  /** Opens sockets for the Socket Mode apps not yet connected, closes those no longer so. */
  async reconcile() {
    if (this.stopped) return;
    const rows = await this.app.db
      .select({ id: pluginInstances.id, org: organizations.id, slug: organizations.slug, token: sql<string | null>`${pluginInstances.secrets}->>'app_token'` })
      .from(pluginInstances)
      .innerJoin(organizations, eq(organizations.id, pluginInstances.organization_id))
      .where(
        and(
          eq(pluginInstances.plugin_slug, 'slack-app'),
          eq(pluginInstances.enabled, true),
          sql`${pluginInstances.configuration}->>'connection_mode' = 'socket'`,
          sql`${pluginInstances.secrets} ? 'bot_token'`,
        ),
      );
    const wanted = new Map(rows.filter((r) => r.token).map((r) => [r.id, { ...r, token: decryptSecret(this.app.db, r.token!) }]));
    for (const [id, run] of this.running)
      if (wanted.get(id)?.token !== run.token) {
        this.running.delete(id);
        await run.client.disconnect().catch(() => undefined);
      }
    for (const [id, row] of wanted) if (!this.running.has(id)) await this.open(id, { orgId: row.org, orgSlug: row.slug }, row.token);
  }

  private async open(instanceId: number, org: { orgId: number; orgSlug: string }, token: string) {
    const { SocketModeClient } = await (socketMode ??= import('@slack/socket-mode'));
    // stop() may have run while the module loaded: no socket opens after it.
    if (this.stopped) return;
    const client = new SocketModeClient({ appToken: token, clientOptions: { slackApiUrl: this.app.config.SLACK_API_URL, fetch: slackFetch as never } });
    client.on('slack_event', async ({ ack, type, body }: { ack: (r?: unknown) => Promise<void>; type: string; body: Record<string, unknown> }) => {
      const kind = KINDS[type];
      if (!kind) return ack();
      try {
        // The instance is read again for each envelope: its secrets and switches may have changed.
        const plugin = await runInTenant(this.app.db, this.app.config, systemActor(org), (ctx) => loadPlugin(ctx, instanceId));
        if (!plugin?.enabled) return ack();
        const answer = await acceptInbound(this.app, org, plugin, kind, body);
        await ack(answer ?? undefined);
      } catch (err) {
        // Not acknowledged: Slack delivers it again (to this or another connection).
        this.app.log.warn({ err, type }, 'slack socket envelope failed');
      }
    });
    this.running.set(instanceId, { client, token });
    await client.start().catch((err) => this.app.log.warn({ err, instanceId }, 'slack socket did not start'));
  }

  async stop() {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await Promise.all([...this.running.values()].map((r) => r.client.disconnect().catch(() => undefined)));
    this.running.clear();
  }
}
