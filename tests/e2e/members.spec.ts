import { expect, test } from '@playwright/test';
import { expectNoSeriousAxeViolations, signInAsAdmin, closeContexts } from './checks.js';
import { useMailbox } from './mailbox.js';

test.afterAll(closeContexts);

/** People join by invitation: an Admin invites from Members, the person accepts by signing in with the e-mailed code. */
const codeFor = useMailbox();

test('an Admin invites from Members; signing in with the e-mailed code accepts, with the invited role', async ({ browser }) => {
  const email = `invited-${Date.now().toString(36)}@firewatch.test`;
  const admin = await (await browser.newContext()).newPage();
  await signInAsAdmin(admin);
  await admin.goto('/default/users');
  const pending = admin.getByRole('link', { name: /^Pending invitations \(\d+\)$/ });
  await expect(pending).toBeVisible();
  const before = Number(/\((\d+)\)/.exec((await pending.textContent()) ?? '')?.[1]);
  await expectNoSeriousAxeViolations(admin, 'members list');

  await admin.getByRole('link', { name: 'Invite' }).click();
  await expect(admin).toHaveURL(/\/default\/invitations\/create$/);
  await admin.getByRole('textbox', { name: /^Email( \*)?$/ }).fill(email);
  await admin.getByRole('combobox', { name: /^Role/ }).click();
  await admin.getByRole('listbox').getByRole('option', { name: 'Admin', exact: true }).click();
  await admin.getByRole('button', { name: 'Save' }).click();
  await expect(admin.getByText('Invitation created successfully.')).toBeVisible();
  await admin.goto('/default/users');
  await expect(admin.getByRole('link', { name: `Pending invitations (${before + 1})` })).toBeVisible();

  const person = await (await browser.newContext()).newPage();
  await person.goto('/default/auth/login');
  await person.getByRole('tab', { name: 'E-mail code' }).click();
  await person.getByLabel('E-mail').fill(email);
  await person.getByRole('button', { name: 'Send code' }).click();
  await person.getByLabel('Code').fill(await codeFor(email));
  await person.getByRole('button', { name: 'Verify code' }).click();
  await expect(person).not.toHaveURL(/auth\/login/);
  await person.goto('/default/overview');
  await expect(person.getByText(`Signed in as ${email} (Admin)`)).toBeVisible();
  await person.context().close();

  await admin.reload();
  await expect(admin.getByRole('link', { name: `Pending invitations (${before})` })).toBeVisible();
  await expect(admin.locator('tbody tr', { hasText: email })).toBeVisible();
  await admin.context().close();
});
