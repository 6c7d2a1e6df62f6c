import { expect, test } from '@playwright/test';
import { freePort, startOwnServer, type OwnServer } from './own-server.js';
import { E2E } from './playwright.config.js';
import { deliver, startSlackStandIn, type SlackStandIn } from '../stand-ins/slack/stand-in.js';
import { nextTs } from '../stand-ins/slack/methods.js';

/**
 * Connecting Slack from Settings against the local Slack stand-in (its authorize page consents at
 * once), then declaring an incident from /firewatch: the channel and its card on the stand-in's
 * record, and a channel message mirrored onto the incident page.
 */
test.describe.configure({ mode: 'serial' });

const SIGNING = 'e2e-slack-signing-secret';
let server: OwnServer;
let slack: SlackStandIn;
let base: string;

test.beforeAll(async () => {
  // A fresh embedded database migrates and seeds first: minutes on a loaded machine (a deadline, not a wait).
  test.setTimeout(420_000);
  slack = await startSlackStandIn();
  slack.users.push({ id: 'UADMIN', email: E2E.adminEmail, name: 'Admin' });
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  server = await startOwnServer(port, { SLACK_API_URL: slack.apiUrl, SLACK_AUTHORIZE_URL: slack.authorizeUrl, JOB_POLL_SECONDS: '1' });
});

test.afterAll(async () => {
  await server?.stop();
  await slack?.close();
});

test('an Admin installs the Slack app from Settings, declares from /firewatch, and sees the channel, card and mirrored message', async ({ page }) => {
  test.setTimeout(120_000);
  // Signed in on this spec's own server (the shared ones have no Slack stand-in).
  await page.goto(`${base}/default/auth/login`);
  await page.getByLabel('E-mail').fill(E2E.adminEmail);
  await page.getByLabel('Password').fill(E2E.adminPassword);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).not.toHaveURL(/auth\/login/);
  await page.goto(`${base}/default/admin/slack`);
  await expect(page.getByTestId('slack-manifest')).toContainText(`request_url: ${base}/api/v1/default/slack/events`);
  await page.getByLabel('Client ID').fill(slack.client.id);
  await page.getByLabel('Client secret').fill(slack.client.secret);
  await page.getByLabel('Signing secret').fill(SIGNING);
  await page.getByRole('button', { name: 'Save credentials' }).click();
  await expect(page.getByText('Slack app credentials saved.')).toBeVisible();
  await page.getByRole('button', { name: 'Add to Slack' }).click();
  await expect(page).toHaveURL(/admin\/slack\?installed=/);
  await expect(page.getByText(`Installed in ${slack.team.name}.`)).toBeVisible();
  await expect(page.getByTestId('slack-installation')).toContainText('ok');

  const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
  const declare = await deliver(
    `${base}/api/v1/default/slack/commands`,
    SIGNING,
    form({
      command: '/firewatch',
      text: 'declare',
      team_id: slack.team.id,
      user_id: 'UADMIN',
      channel_id: 'CGEN',
      trigger_id: slack.issueTrigger(),
      response_url: slack.responseUrl(),
    }),
    'application/x-www-form-urlencoded',
  );
  expect(declare.status).toBe(200);
  expect(slack.calls.some((c) => c.method === 'views.open')).toBe(true);
  const values = {
    title: { value: { value: 'Login page down' } },
    description: { value: { value: '' } },
    visibility: { value: { selected_option: { value: 'Open' } } },
  };
  const submitted = await deliver(
    `${base}/api/v1/default/slack/interactions`,
    SIGNING,
    form({
      payload: JSON.stringify({
        type: 'view_submission',
        team: { id: slack.team.id },
        user: { id: 'UADMIN' },
        view: { id: 'V1', callback_id: 'firewatch_declare', state: { values } },
      }),
    }),
    'application/x-www-form-urlencoded',
  );
  expect(submitted.status).toBe(200);

  await expect.poll(() => [...slack.channels.values()].map((c) => c.name), { timeout: 60_000 }).toEqual(['inc-1-login-page-down']);
  const channel = [...slack.channels.values()][0]!;
  await expect.poll(() => channel.pins.length, { timeout: 60_000 }).toBe(1);
  const card = channel.messages.find((m) => m.ts === channel.pins[0])!;
  expect(JSON.stringify(card.blocks)).toContain('IAO-1: Login page down');
  expect(channel.members.has('UADMIN')).toBe(true);

  await page.goto(`${base}/default/iaos/IAO-1/view`);
  const ts = nextTs();
  channel.messages.push({ ts, text: 'Rolled back the login release', user: 'UADMIN' });
  const event = JSON.stringify({
    type: 'event_callback',
    team_id: slack.team.id,
    event_id: 'EvE2E1',
    event: { type: 'message', channel: channel.id, user: 'UADMIN', text: 'Rolled back the login release', ts },
  });
  expect((await deliver(`${base}/api/v1/default/slack/events`, SIGNING, event, 'application/json')).status).toBe(200);
  await expect(page.getByRole('region', { name: 'Conversation' })).toContainText(`${E2E.adminEmail}: Rolled back the login release`, { timeout: 30_000 });
});
