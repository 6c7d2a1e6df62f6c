import fp from 'fastify-plugin';
import type { RequestContext } from '../core/context.js';
import { subscribe, type DomainEvents } from '../core/events.js';
import { registerJobs } from '../core/jobs/define.js';
import { onConversationOpened } from '../incidents/lifecycle.js';
import { channelJob, openCaseChannel, openChannel, syncChannels, syncJob } from './channels.js';
import { onCaseConversationOpened } from '../cases/service.js';
import { inboundJob, pruneDeliveriesJob } from './inbound.js';
import { onChannelNotification } from '../notifications/dispatch.js';
import { announceCases, announceSignals, noticeJob, postNotification, refreshNotices } from './notify.js';
import { registerSlackRoutes } from './routes.js';
import { SlackSockets } from './socket.js';

/**
 * A changed incident or case with a channel: its name, topic, card, people, documents, reports and
 * (once closed) archiving follow. New cases and signals are announced where their definitions say,
 * and those messages follow their cases.
 */
async function onChange(ctx: RequestContext, events: DomainEvents) {
  if (events.type === 'incident.updated') await syncChannels(ctx, 'incident', events.ids);
  if ((events.type === 'report.created' || events.type === 'resource.added') && events.incident_id) await syncChannels(ctx, 'incident', [events.incident_id]);
  if (events.type === 'case.updated' || events.type === 'case.escalated') {
    await syncChannels(ctx, 'case', events.ids);
    await refreshNotices(ctx, events.ids);
  }
  if (events.type === 'case.created') await announceCases(ctx, events.ids);
  if (events.type === 'signal.processed') await announceSignals(ctx, events.ids);
}

/**
 * Slack: install (OAuth v2), events, commands and interactions over HTTP or Socket Mode, a channel per
 * incident (and per case where its type says). Its listeners are added here, when the app starts (the same function once per process).
 */
export default fp(
  async (scope) => {
    const sockets = new SlackSockets(scope);
    await registerSlackRoutes(scope, () => sockets.reconcile());
    await registerJobs(scope, [inboundJob, channelJob, syncJob, noticeJob, pruneDeliveriesJob]);
    onConversationOpened(openChannel);
    onCaseConversationOpened(openCaseChannel);
    onChannelNotification(postNotification);
    subscribe(onChange);
    scope.addHook('onReady', () => sockets.start());
    scope.addHook('preClose', () => sockets.stop());
  },
  { name: 'slack', dependencies: ['firewatch-tenancy', 'firewatch-jobs', 'firewatch-secrets'], fastify: '5.x' },
);
