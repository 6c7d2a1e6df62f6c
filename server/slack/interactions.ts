import { and, eq } from 'drizzle-orm';
import type { JobRun } from '../core/jobs/define.js';
import type { Mail } from '../core/mail.js';
import { escalateCase, updateCase } from '../cases/service.js';
import { withProject } from '../incidents/defaults.js';
import { createIncident, joinIncident } from '../incidents/lifecycle.js';
import { incidents } from '../incidents/tables.js';
import type { LoadedPlugin } from '../plugins/registry.js';
import { incidentPage } from './card.js';
import { runSubcommand, type Here } from './commands.js';
import { answerOf, asMember, notAMember, slackPerson } from './identity.js';
import { slackChannels } from './tables.js';

type Answer = { text: string | null; responseUrl: string | null };

/** The incident or case whose channel a command was typed in, if any. */
const recordOfChannel = (job: JobRun, channelId: string): Promise<Here> =>
  job.tenant(async (ctx) => {
    const [row] = await ctx.tx
      .select({ incident_id: slackChannels.incident_id, case_id: slackChannels.case_id })
      .from(slackChannels)
      .where(and(eq(slackChannels.organization_id, ctx.orgId), eq(slackChannels.channel_id, channelId)));
    return { incidentId: row?.incident_id ?? null, caseId: row?.case_id ?? null };
  });

/** A slash command's subcommand, run as the member the Slack user is. */
export async function handleCommand(job: JobRun, plugin: LoadedPlugin, body: Record<string, unknown>): Promise<Answer> {
  const responseUrl = typeof body.response_url === 'string' ? body.response_url : null;
  const person = await slackPerson(job.app, job.org, plugin, String(body.user_id));
  if (!person.actor) return { text: notAMember(person, job.org.orgSlug), responseUrl };
  const rest = String(body.text ?? '').trim();
  const here = await recordOfChannel(job, String(body.channel_id ?? ''));
  const actor = person.actor;
  const mails: Mail[] = [];
  const text = await answerOf(() =>
    asMember(job.app, actor, (ctx) =>
      runSubcommand(ctx, { name: rest.split(/\s+/)[0]!.toLowerCase(), rest, ...here, email: person.email!, publicUrl: job.app.config.PUBLIC_URL, mails }),
    ),
  );
  // Mail leaves only after the work committed (as the web app's); a failed delivery does not undo it.
  const sent = await Promise.allSettled(mails.map((m) => job.app.mailer(m)));
  for (const s of sent) if (s.status === 'rejected') job.app.log.warn({ err: s.reason }, 'mail of a Slack command failed');
  return { text, responseUrl };
}

type Payload = {
  type: string;
  user: { id: string };
  response_url?: string;
  view?: { callback_id: string; state: { values: Record<string, Record<string, { value?: string; selected_option?: { value: string } }>> } };
  actions?: { action_id: string; value?: string }[];
};

const field = (p: Payload, block: string) => {
  const v = p.view?.state.values[block]?.value;
  return v?.selected_option?.value ?? v?.value ?? '';
};

/** The declare dialog submitted: the incident is created as the member (its channel follows). */
async function declare(job: JobRun, p: Payload, actor: NonNullable<Awaited<ReturnType<typeof slackPerson>>['actor']>) {
  return answerOf(() =>
    asMember(job.app, actor, async (ctx) => {
      const id = await createIncident(
        ctx,
        await withProject(ctx, {
          title: field(p, 'title').slice(0, 200) || 'Declared from Slack',
          description: field(p, 'description') || undefined,
          visibility: field(p, 'visibility') === 'Restricted' ? 'Restricted' : 'Open',
        } as never),
      );
      const [row] = await ctx.tx
        .select({ name: incidents.name })
        .from(incidents)
        .where(and(eq(incidents.organization_id, ctx.orgId), eq(incidents.id, id)));
      return `Incident ${row!.name} declared: ${incidentPage(job.app.config.PUBLIC_URL, job.org.orgSlug, row!.name)}`;
    }),
  );
}

/** The declare dialog, and the buttons of cards and notifications (join, escalate). */
export async function handleInteraction(job: JobRun, plugin: LoadedPlugin, body: Record<string, unknown>): Promise<Answer> {
  const p = body as unknown as Payload;
  const responseUrl = p.response_url ?? null;
  const person = await slackPerson(job.app, job.org, plugin, p.user.id);
  if (!person.actor) return { text: notAMember(person, job.org.orgSlug), responseUrl };
  const actor = person.actor;
  if (p.type === 'view_submission' && p.view?.callback_id === 'firewatch_declare') return { text: await declare(job, p, actor), responseUrl };
  const action = p.actions?.[0];
  if (p.type !== 'block_actions' || !action?.value) return { text: null, responseUrl };
  const id = Number(action.value);
  if (action.action_id === 'incident_join') return { text: await answerOf(() => asMember(job.app, actor, (ctx) => joinIncident(ctx, id))), responseUrl };
  if (action.action_id === 'case_ack')
    return {
      text: await answerOf(() =>
        asMember(job.app, actor, async (ctx) => {
          await updateCase(ctx, id, { status: 'Triage' });
          return `Acknowledged by ${person.email}: in triage.`;
        }),
      ),
      responseUrl,
    };
  if (action.action_id === 'case_escalate')
    return {
      text: await answerOf(() =>
        asMember(job.app, actor, async (ctx) => {
          await escalateCase(ctx, id);
          return 'Escalated to an incident; its channel follows.';
        }),
      ),
      responseUrl,
    };
  return { text: null, responseUrl };
}
