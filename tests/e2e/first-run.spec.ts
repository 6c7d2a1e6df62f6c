import { expect, test, type Browser, type Page } from '@playwright/test';
import { freePort, startOwnServer, type OwnServer } from './own-server.js';
import { serverOf } from './playwright.config.js';
import { useMailbox } from './mailbox.js';
import { RIGHTS, type Right } from '../../server/core/rights.js';
import { closeContexts } from './checks.js';

test.afterAll(closeContexts);

/**
 * The first run of a fresh installation (a second server of its own: the shared one starts with an
 * Owner): the first person to sign in owns `default`, uploads to chat in the seeded Default project
 * without creating anything, reports an incident from the seeded types, and invites a teammate who
 * accepts by signing in with the e-mailed code and lands as a Member.
 */
const codeFor = useMailbox();
let server: OwnServer;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  server = await startOwnServer(await freePort(), {
    JWT_SECRET: 'first-run-secret-first-run-secret-first-run',
    // A fresh installation: no Owner until the first person signs in.
    FIREWATCH_ADMIN_EMAIL: '',
    FIREWATCH_ADMIN_PASSWORD: '',
    SMTP_URL: `smtp://127.0.0.1:${serverOf(test.info()).smtpPort}`,
  });
});

test.afterAll(async () => {
  await server?.stop();
});

async function signInWithCode(browser: Browser, email: string): Promise<Page> {
  const page = await (await browser.newContext({ baseURL: server.base })).newPage();
  await page.goto('/default/auth/login');
  await page.getByRole('tab', { name: 'E-mail code' }).click();
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('button', { name: 'Send code' }).click();
  await page.getByLabel('Code').fill(await codeFor(email));
  await page.getByRole('button', { name: 'Verify code' }).click();
  await expect(page).not.toHaveURL(/auth\/login/);
  return page;
}

test('the first user owns default, uploads, reports from the seeded types and invites a teammate who lands as a Member', async ({ browser }) => {
  test.setTimeout(240_000);
  const owner = 'first.owner@firewatch.test';
  const teammate = 'teammate@firewatch.test';
  const page = await signInWithCode(browser, owner);
  await page.goto('/default/overview');
  await expect(page.getByText(`Signed in as ${owner} (Owner)`)).toBeVisible();

  // Chat: the Default project is there already; upload without creating anything.
  await page.goto('/default/chat');
  await expect(page.getByText('Connected')).toBeVisible();
  await expect(page.getByLabel('Project')).toContainText('Default');
  await page.getByTestId('upload-input').setInputFiles({
    name: 'failover.md',
    mimeType: 'text/markdown',
    buffer: Buffer.from('# Failover\n\nRun `patronictl failover --candidate pg-2` to promote the replica.\n'),
  });
  const row = page.getByTestId('submission').filter({ hasText: 'failover.md' });
  await expect(row.getByTestId('submission-status')).toHaveText('indexed', { timeout: 60_000 });

  // Report an incident: the form offers the seeded types.
  await page.goto('/default/iaos/report');
  await page.getByRole('textbox', { name: /^Title/ }).fill('Checkout is slow');
  await page.getByRole('combobox', { name: /^Project/ }).click();
  await page.getByRole('option', { name: 'Default' }).click();
  await page.getByRole('combobox', { name: /type/i }).click();
  for (const type of ['Default', 'Outage', 'Security', 'Data issue']) await expect(page.getByRole('option', { name: type, exact: true })).toBeVisible();
  await page.getByRole('option', { name: 'Outage', exact: true }).click();
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.getByText(/Incident IAO-1 has been reported/)).toBeVisible();
  const token = await page.evaluate(() => localStorage.getItem('token'));
  const incidents = await (await page.request.get('/api/v1/default/iaos', { headers: { authorization: `Bearer ${token}` } })).json();
  expect(incidents.items[0]).toMatchObject({
    name: 'IAO-1',
    incident_type_name: 'Outage',
    incident_priority_name: 'Medium',
    incident_severity_name: 'Undetermined',
  });

  // Invite a teammate; they accept by signing in with the e-mailed code.
  await page.goto('/default/users');
  await page.getByRole('link', { name: 'Invite' }).click();
  await page.getByRole('textbox', { name: /^Email( \*)?$/ }).fill(teammate);
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Invitation created successfully.')).toBeVisible();
  const mate = await signInWithCode(browser, teammate);
  await mate.goto('/default/overview');
  await expect(mate.getByText(`Signed in as ${teammate} (Member)`)).toBeVisible();
  // Each role is offered what the rights table (server/core/rights.ts) lets it do, and nothing more.
  const organization = (await (await page.request.get('/api/v1/organizations', { headers: { authorization: `Bearer ${token}` } })).json()).items.find(
    (o: { slug: string }) => o.slug === 'default',
  );
  const controls: { right: Right; path: string; control: (p: Page) => ReturnType<Page['getByRole']> }[] = [
    { right: 'invite', path: '/default/users', control: (p) => p.getByRole('link', { name: 'Invite' }) },
    { right: 'apiKeys', path: '/default/apikeys', control: (p) => p.getByRole('link', { name: 'Create' }) },
    { right: 'webhooks', path: '/default/webhooks/endpoints', control: (p) => p.getByRole('link', { name: 'Create' }) },
    { right: 'editOrganization', path: `/default/organizations/${organization.id}`, control: (p) => p.getByRole('button', { name: 'Save' }) },
  ];
  const RANK = { Member: 0, Admin: 1, Manager: 2, Owner: 3 } as const;
  for (const [role, who] of [
    ['Owner', page],
    ['Member', mate],
  ] as const) {
    for (const { right, path, control } of controls) {
      await who.goto(path);
      await expect(who.locator('#main-content')).toBeVisible();
      const allowed = RANK[role] >= RANK[RIGHTS[right].least];
      // Wait for the screen itself (its title), then count the control. Below Admin, API keys have no
      // screen at all (nothing to read there), nor has the organization's form (nothing to save).
      if (allowed || !['apiKeys', 'editOrganization'].includes(right)) await expect(who.locator('.RaList-main, .RaEdit-main').first()).toBeVisible();
      await expect(control(who), `${role} on ${path} (${right})`).toHaveCount(allowed ? 1 : 0);
    }
    // Members never get a Create on Members (people join by invitation).
    await who.goto('/default/users');
    await expect(who.locator('.RaList-main')).toBeVisible();
    await expect(who.getByRole('link', { name: 'Create' })).toHaveCount(0);
  }
  // A Member is never offered a form they cannot save (issue 33): no edit screen for the organization.
  await mate.goto(`/default/organizations/${organization.id}`);
  await expect(mate.locator('#main-content')).toBeVisible();
  await expect(mate.getByRole('textbox', { name: /^Description/ })).toHaveCount(0);
  await mate.context().close();
  await page.context().close();
});
