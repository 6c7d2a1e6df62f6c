import type { Test } from 'tap';
import { incidentApp } from '../incidents/helpers.js';
import { BACKGROUND_LANE, drainJobs } from '../../../server/core/jobs/define.js';
import { SLACK_LANE } from '../../../server/slack/work.js';
import { NOTIFICATION_QUEUE } from '../../../server/notifications/dispatch.js';
import { slackSigned, startSlackStandIn } from '../../stand-ins/slack/stand-in.js';
import { created } from '../factories.js';

/** Waits for a condition the test itself does not control (a job running, a call setting out), or fails saying which. */
export async function until(what: string, ok: () => boolean | Promise<boolean>, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`still waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export const SIGNING_SECRET = 'signing-secret-of-the-test-app';

/**
 * An incident app pointed at a local Slack stand-in, with a Slack app instance installed through
 * the real OAuth v2 path (install link, Slack's redirect with a code, the token exchange).
 */
export async function slackApp(t: Test, opts: { install?: boolean; env?: Record<string, string> } = {}) {
  const slack = await startSlackStandIn();
  t.teardown(() => slack.close());
  const base = await incidentApp(t, {
    SLACK_API_URL: slack.apiUrl,
    SLACK_AUTHORIZE_URL: slack.authorizeUrl,
    PUBLIC_URL: 'http://firewatch.test',
    JOB_POLL_SECONDS: '1',
    ...opts.env,
  });
  const { api, request } = base;
  slack.users.push({ id: 'UCMD', email: 'commander@example.com', name: 'Cora Commander' });

  /** The queues the Slack work runs on (and notifications reach it from), until none has anything left (generous: a loaded machine is slow, a passing run is not). */
  const settle = async () => {
    for (let i = 0; i < 3; i++) {
      await drainJobs(base.app, 90_000, BACKGROUND_LANE);
      await drainJobs(base.app, 90_000, { name: NOTIFICATION_QUEUE, concurrency: 2 });
      await drainJobs(base.app, 90_000, SLACK_LANE);
    }
  };

  async function addInstance(configuration: Record<string, unknown> = {}) {
    const made = created(
      'instance',
      await api('POST', '/plugins/instances', {
        plugin_slug: 'slack-app',
        title: 'Slack',
        configuration: { client_id: slack.client.id, client_secret: slack.client.secret, signing_secret: SIGNING_SECRET, ...configuration },
      }),
    );
    return made.id as number;
  }

  /** "Add to Slack" as a browser does it: the link, Slack's consent (a code), the callback. */
  async function install(instanceId: number) {
    const link = await api('POST', '/slack/install-link', { plugin_instance_id: instanceId });
    if (link.status !== 200) throw new Error(`install link: ${JSON.stringify(link.body)}`);
    const state = new URL(link.body.url).searchParams.get('state')!;
    return request({ method: 'GET', url: `/api/v1/default/slack/oauth/callback?code=${slack.issueCode()}&state=${encodeURIComponent(state)}` });
  }

  const signed = (path: string, body: string, type: string, at?: number, secret = SIGNING_SECRET) =>
    request({ method: 'POST', url: `/api/v1/default/slack/${path}`, payload: body, headers: { 'content-type': type, ...slackSigned(secret, body, at) } });
  let eventCounter = 0;
  /** An Events API delivery (event_callback), signed; `event_id` repeats a delivery. */
  const event = (e: Record<string, unknown>, o: { event_id?: string; at?: number; secret?: string } = {}) =>
    signed(
      'events',
      JSON.stringify({ type: 'event_callback', team_id: slack.team.id, api_app_id: 'A0STANDIN', event_id: o.event_id ?? `Ev${++eventCounter}`, event: e }),
      'application/json',
      o.at,
      o.secret,
    );
  const command = (text: string, fields: Record<string, string> = {}) => {
    const body = new URLSearchParams({
      command: '/firewatch',
      text,
      team_id: slack.team.id,
      user_id: 'UCMD',
      channel_id: 'CGENERAL',
      trigger_id: slack.issueTrigger(),
      response_url: slack.responseUrl(),
      ...fields,
    }).toString();
    return signed('commands', body, 'application/x-www-form-urlencoded');
  };
  const interaction = (payload: Record<string, unknown>) =>
    signed(
      'interactions',
      new URLSearchParams({
        payload: JSON.stringify({ team: { id: slack.team.id }, user: { id: 'UCMD' }, trigger_id: slack.issueTrigger(), ...payload }),
      }).toString(),
      'application/x-www-form-urlencoded',
    );

  let instanceId = 0;
  if (opts.install !== false) {
    instanceId = await addInstance();
    const res = await install(instanceId);
    if (res.status !== 302) throw new Error(`callback: ${res.status} ${JSON.stringify(res.body)}`);
  }
  const callsOf = (method: string) => slack.calls.filter((c) => c.method === method);
  return { ...base, slack, settle, addInstance, install, event, command, interaction, signed, callsOf, instanceId: () => instanceId };
}
