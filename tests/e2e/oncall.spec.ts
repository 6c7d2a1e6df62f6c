import { expect, test, type Page } from '@playwright/test';
import { E2E } from './playwright.config.js';
import { api, closeContexts, signInAsAdmin } from './checks.js';
import { useMailbox } from './mailbox.js';

/**
 * Issue 37, on-call as a user walks it: a weekly rotation and an override built on their screens, an
 * escalation policy on the schedule, who is on call now and the calendar; then a Critical incident
 * whose priority pages its commander, acknowledged from the link in the page's e-mail (signed out), and
 * the acknowledgement on the incident's timeline and in the pages list.
 */
test.describe.configure({ mode: 'serial' });
test.afterAll(closeContexts);
const mail = useMailbox();

let page: Page;
const run = Date.now() % 100000;
const scheduleName = `Payments primary ${run}`;
const standIn = `bo-${run}@firewatch.test`;
const HOUR = 3_600_000;
/** A `datetime-local` value (the browser's time zone is the machine's, as here). */
const local = (d: Date) => new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);

/** Decodes a quoted-printable mail body (soft line breaks, =XX bytes). */
const unquote = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));

/** Opens a create screen from its list, as the menu leads there. */
async function create(path: string) {
  await page.goto(`/default/${path}`);
  await page.getByRole('link', { name: 'Create' }).click();
  await expect(page).toHaveURL(new RegExp(`/${path}/create$`));
}

test('an admin builds a weekly rotation, an override and an escalation policy', async ({ browser }) => {
  test.slow();
  page = await (await browser.newContext()).newPage();
  await signInAsAdmin(page);

  await create('oncall/schedules');
  await page.getByRole('textbox', { name: 'Name' }).fill(scheduleName);
  await page.getByRole('textbox', { name: 'Time zone' }).fill('UTC');
  // One weekly layer handing off at the hour a day ago: the admin holds this week, the stand-in the next.
  await page.getByRole('button', { name: 'Add' }).click();
  await page.getByRole('textbox', { name: 'Name' }).nth(1).fill('Weekly');
  await page.getByRole('textbox', { name: 'Start' }).fill(new Date(Date.now() - 24 * HOUR).toISOString().slice(0, 13) + ':00');
  await page.getByRole('combobox', { name: 'Rotation' }).click();
  await page.getByRole('option', { name: 'Weekly' }).click();
  await page.getByRole('spinbutton', { name: 'Length' }).fill('1');
  for (const member of [E2E.adminEmail, standIn]) {
    await page.getByRole('combobox', { name: 'Members' }).fill(member);
    await page.getByRole('combobox', { name: 'Members' }).press('Enter');
  }
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Schedule created')).toBeVisible();

  // "I take the next two hours": the stand-in overrides the admin.
  await create('oncall/overrides');
  await page.getByRole('combobox', { name: 'Schedule' }).fill(scheduleName.slice(0, 12));
  await page.getByRole('option', { name: scheduleName }).click();
  await page.getByRole('textbox', { name: 'Email' }).fill(standIn);
  await page.getByLabel('Start at').fill(local(new Date(Date.now() - HOUR)));
  await page.getByLabel('End at').fill(local(new Date(Date.now() + 2 * HOUR)));
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Override created')).toBeVisible();

  // A policy whose one step pages whoever is on call on the schedule.
  const token = (await page.evaluate(() => localStorage.getItem('token')))!;
  const scheduleId = (await api(page, token, 'GET', `/oncall/schedules?q=${encodeURIComponent(scheduleName)}`)).json.items[0].id as number;
  await create('oncall/escalation_policies');
  await page.getByRole('textbox', { name: 'Name' }).fill(`Payments ${run}`);
  await page.getByRole('button', { name: 'Add' }).click();
  await page.getByRole('spinbutton', { name: 'Timeout minutes' }).fill('5');
  await page.getByRole('button', { name: 'Add' }).first().click();
  await page.getByRole('combobox', { name: 'Type' }).click();
  await page.getByRole('option', { name: 'Schedule' }).click();
  await page.getByRole('spinbutton', { name: 'Id' }).fill(String(scheduleId));
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Escalation policy created')).toBeVisible();
  const policies = await api(page, token, 'GET', `/oncall/escalation_policies?q=${encodeURIComponent(`Payments ${run}`)}`);
  expect(policies.json.items[0].steps).toEqual([{ timeout_minutes: 5, targets: [{ type: 'schedule', id: scheduleId }] }]);
});

test('the on-call screen shows who is on call now and the calendar with the override', async () => {
  test.slow();
  await page.goto('/default/oncall');
  const row = page.locator('p', { has: page.getByRole('button', { name: scheduleName }) });
  await expect(row).toContainText(`${standIn} until `);
  await row.getByRole('button', { name: scheduleName }).click();
  await expect(page.getByRole('heading', { name: `Next four weeks: ${scheduleName}` })).toBeVisible();
  const calendar = page.getByRole('table', { name: 'On-call calendar' });
  await expect(calendar.getByText(`${standIn} (override)`, { exact: false }).first()).toBeVisible();
  // After the override the admin holds the rest of the week, and the stand-in the week after.
  await expect(calendar.getByText(new RegExp(`^${E2E.adminEmail.replace('.', '\\.')} until`)).first()).toBeVisible();
  await expect(calendar.getByText(new RegExp(`^${standIn.replace(/\./g, '\\.')} until`)).first()).toBeVisible();
});

test('a Critical incident pages its commander, who acknowledges from the e-mail link', async ({ browser }) => {
  test.slow();
  const title = `Card payments failing ${run}`;
  await page.goto('/default/iaos/create');
  await page.getByRole('textbox', { name: 'Title' }).fill(title);
  await page.getByRole('combobox', { name: 'Priority' }).click();
  await page.getByRole('option', { name: 'Critical' }).click();
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.getByText(/^Incident IAO-\d+ has been reported\.$/)).toBeVisible();

  // The commander (the reporter, here the admin) is paged by e-mail: no channel of their own yet.
  let link = '';
  await expect
    .poll(
      () => {
        const paged = mail.mailsTo(E2E.adminEmail).find((m) => unquote(m).includes(title));
        link = paged ? (/Acknowledge: (\S+)/.exec(unquote(paged))?.[1] ?? '') : '';
        return link;
      },
      { timeout: 30_000 },
    )
    .toMatch(/\/oncall\/respond\//);

  // The link works signed out, in whatever opens the mail: it shows a button; the button acknowledges.
  const phone = await (await browser.newContext()).newPage();
  await phone.goto(link);
  await expect(phone.getByRole('heading', { name: 'Acknowledge page' })).toBeVisible();
  await expect(phone.getByText(title)).toBeVisible();
  await phone.getByRole('button', { name: 'Acknowledge' }).click();
  await expect(phone.getByRole('heading', { name: 'Acknowledged' })).toBeVisible();
  await expect(phone.getByText(`acknowledged by ${E2E.adminEmail}`)).toBeVisible();
  await phone.goto(link);
  await expect(phone.getByRole('heading', { name: 'This link no longer works' })).toBeVisible();

  // On the incident's timeline: the page, and who acknowledged it.
  const token = (await page.evaluate(() => localStorage.getItem('token')))!;
  const name = (await api(page, token, 'GET', `/iaos?q=${encodeURIComponent(title)}`)).json.items[0].name as string;
  await page.goto(`/default/iaos/${name}/view`);
  // Pages are notifications, a filter of their own on the timeline.
  await page.getByRole('button', { name: 'Notifications' }).click();
  const timeline = page.getByRole('table', { name: 'Timeline' });
  const admin = E2E.adminEmail.replace(/\./g, '\\.');
  await expect(timeline.getByRole('row', { name: new RegExp(`Paged ${admin}: Critical ${name}: ${title}`) })).toBeVisible();
  await expect(timeline.getByRole('row', { name: new RegExp(`Page "Critical ${name}: ${title}" acknowledged by ${admin}`) })).toBeVisible();

  // And in the pages list.
  await page.goto('/default/oncall/pages');
  await expect(page.getByRole('row', { name: new RegExp(`${title}.*Acknowledged`) })).toBeVisible();
});
