import { expect, test, type Browser, type Page } from '@playwright/test';
import { useMailbox } from './mailbox.js';
import { E2E } from './playwright.config.js';
import { expectNoSeriousAxeViolations, closeContexts } from './checks.js';

/**
 * What a person does in the admin app, against the real server and database. The steps build on
 * each other (a tag needs its tag type, an API key its project), so they run in order.
 */
test.describe.configure({ mode: 'serial' });
test.afterAll(closeContexts);

const codeFor = useMailbox();

async function signIn(page: Page, email = E2E.adminEmail, password = E2E.adminPassword) {
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Opens a list from the side menu and waits until it is that list (clicks must not race the navigation). */
async function openFromMenu(page: Page, label: string, path: string) {
  const item = page.locator('.RaMenu-open, .RaMenu-closed').getByRole('menuitem', { name: label, exact: true });
  // Settings' screens sit behind its entry (issue 40); a fresh page has it closed.
  const settings = page.getByRole('button', { name: 'Settings' });
  if (!(await item.isVisible()) && (await settings.getAttribute('aria-expanded')) !== 'true') await settings.click();
  await item.click();
  await expect(page).toHaveURL(new RegExp(`/${path}(\\?.*)?$`));
}

/** The list's Create button (by its target: right after a navigation the previous list may still be on screen). */
async function openCreate(page: Page, path: string) {
  await page
    .getByRole('link', { name: 'Create' })
    .and(page.locator(`a[href$="/${path}/create"]`))
    .click();
  await expect(page).toHaveURL(new RegExp(`/${path}/create$`));
}

async function newPage(browser: Browser) {
  const context = await browser.newContext();
  return context.newPage();
}

let admin: Page;

test('a protected page leads to the landing page and on to sign-in; a wrong password is refused; the right one returns to that page', async ({ browser }) => {
  admin = await newPage(browser);
  await admin.goto('/default/tags');
  await expect(admin).toHaveURL(/\/default\/landing$/);
  await admin.getByRole('link', { name: 'Sign in' }).click();
  await expect(admin).toHaveURL(/\/default\/auth\/login$/);
  await expect(admin.getByRole('heading', { name: 'Sign in to Firewatch' })).toBeVisible();

  await signIn(admin, E2E.adminEmail, 'not-the-password');
  await expect(admin.getByRole('alert')).toHaveText('Invalid e-mail or password.');

  await signIn(admin);
  await expect(admin).toHaveURL(/\/default\/tags$/);
  await expect(
    admin
      .getByRole('heading', { name: 'Tags' })
      .or(admin.locator('#react-admin-title', { hasText: 'Tags' }))
      .first(),
  ).toBeVisible();
  await expect(admin.getByTestId('organization-banner')).toContainText('Default');
  await expect(admin.getByTestId('organization-banner')).toContainText(/Trial: \d+ days? left/);
});

test('settings screens come from the server: menu filter, required fields, a reference picker and search', async () => {
  // The drawer starts minimized (spec); the filter box is in the full-width drawer.
  await admin.getByRole('button', { name: 'Open menu' }).click();
  // Settings opens by itself on a page that sits behind it (the last test's).
  const settings = admin.getByRole('button', { name: 'Settings' });
  if ((await settings.getAttribute('aria-expanded')) !== 'true') await settings.click();
  await admin.getByLabel('Filter menu').fill('tag');
  const sidebar = admin.locator('.RaSidebar-fixed');
  await expect(sidebar.getByRole('menuitem', { name: 'Tag types' })).toBeVisible();
  await expect(sidebar.getByRole('menuitem', { name: 'Tags', exact: true })).toBeVisible();
  await expect(sidebar.getByRole('menuitem', { name: 'Projects' })).toHaveCount(0);

  await openFromMenu(admin, 'Tag types', 'tag_types');
  await openCreate(admin, 'tag_types');
  await admin.getByRole('button', { name: 'Save' }).click();
  await expect(admin.getByText('This field is required')).toBeVisible();
  await admin.getByRole('textbox', { name: 'Name' }).fill('Severity');
  await admin.getByRole('textbox', { name: 'Description' }).fill('How bad it is');
  await admin.getByRole('button', { name: 'Save' }).click();
  await expect(admin.getByText('Tag type created successfully.')).toBeVisible();
  await expect(admin.getByRole('cell', { name: 'Severity' })).toBeVisible();

  for (const name of ['sev-1', 'sev-2']) {
    await openFromMenu(admin, 'Tags', 'tags');
    await openCreate(admin, 'tags');
    await admin.getByRole('textbox', { name: 'Name' }).fill(name);
    await admin.getByLabel('Tag type').fill('Sev');
    await admin.getByRole('option', { name: 'Severity' }).click();
    await admin.getByRole('button', { name: 'Save' }).click();
    await expect(admin.getByText('Tag created successfully.')).toBeVisible();
  }
  const rows = admin.locator('tbody tr');
  await expect(rows).toHaveCount(2);
  // The tag type column shows the referenced record's name, not its id.
  await expect(rows.filter({ hasText: 'sev-1' })).toContainText('Severity');

  await admin.getByPlaceholder('Search', { exact: true }).fill('sev-1');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('sev-1');
  await expect(admin).toHaveURL(/filter=.*sev-1/);
});

test('the server’s validation message shows at its field, and a fixed value saves', async () => {
  await admin.locator('tbody tr', { hasText: 'sev-1' }).click();
  await expect(admin.getByRole('textbox', { name: 'Name' })).toHaveValue('sev-1');
  await admin.getByRole('textbox', { name: 'Uri' }).fill('not a url');
  await admin.getByRole('button', { name: 'Save' }).click();
  // "Must be a URL" comes from the API's 422 (the form has no URL rule of its own).
  await expect(admin.getByText('Must be a URL')).toBeVisible();
  await expect(admin).toHaveURL(/\/tags\/\d+$/);

  await admin.getByRole('textbox', { name: 'Uri' }).fill('https://runbooks.example.com/sev-1');
  await admin.getByRole('button', { name: 'Save' }).click();
  await expect(admin.getByText('Tag updated successfully.')).toBeVisible();
  await admin.locator('tbody tr', { hasText: 'sev-1' }).click();
  await expect(admin.getByRole('textbox', { name: 'Uri' })).toHaveValue('https://runbooks.example.com/sev-1');
});

test('deleting asks first, and the row stays gone after a reload', async () => {
  await openFromMenu(admin, 'Tags', 'tags');
  await admin.getByPlaceholder('Search', { exact: true }).fill('');
  await admin.locator('tbody tr', { hasText: 'sev-2' }).click();
  await admin.getByRole('button', { name: 'Delete' }).click();
  const dialog = admin.getByRole('dialog');
  await expect(dialog).toContainText("Delete tag 'sev-2'?");
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(admin.getByRole('textbox', { name: 'Name' })).toHaveValue('sev-2');

  await admin.getByRole('button', { name: 'Delete' }).click();
  await admin.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
  await expect(admin.getByText('Tag deleted successfully.')).toBeVisible();
  await admin.reload();
  await expect(admin.locator('tbody tr', { hasText: 'sev-1' })).toBeVisible();
  await expect(admin.locator('tbody tr', { hasText: 'sev-2' })).toHaveCount(0);
});

test('a new API key is shown once and works against the API', async () => {
  await admin.getByLabel('Filter menu').fill('');
  await openFromMenu(admin, 'Projects', 'projects');
  await openCreate(admin, 'projects');
  await admin.getByRole('textbox', { name: 'Name' }).fill('Payments');
  await admin.getByRole('button', { name: 'Save' }).click();
  await expect(admin.getByText('Project created successfully.')).toBeVisible();

  await openFromMenu(admin, 'API keys', 'apikeys');
  await openCreate(admin, 'apikeys');
  await admin.getByLabel('Project').fill('Pay');
  await admin.getByRole('option', { name: 'Payments' }).click();
  await admin.getByRole('textbox', { name: 'Description' }).fill('CI pipeline');
  await admin.getByRole('button', { name: 'Save' }).click();
  const dialog = admin.getByRole('dialog', { name: 'Your new API key' });
  await expect(dialog).toContainText('will not be shown again');
  const key = await dialog.getByLabel('API key').inputValue();
  expect(key).toMatch(/^fw_/);

  const answer = await admin.request.get('/api/v1/default/projects', { headers: { authorization: `Bearer ${key}` } });
  expect(answer.status()).toBe(200);
  expect((await answer.json()).items.map((p: { name: string }) => p.name)).toContain('Payments');

  await dialog.getByRole('button', { name: 'Done' }).click();
  await expect(admin.locator('tbody tr', { hasText: 'CI pipeline' })).toContainText(key.slice(0, 10));
});

test('forms start from the remembered project, and its picker still finds every project by name', async () => {
  const token = await admin.evaluate(() => localStorage.getItem('token'));
  const headers = { authorization: `Bearer ${token}` };
  expect((await admin.request.post('/api/v1/default/projects', { headers, data: { name: 'Payments EU' } })).status()).toBe(201);

  // The project created last from the screens ("Payments") is remembered (spec §4: kept for many entities).
  await openFromMenu(admin, 'Cases', 'cases');
  await openCreate(admin, 'cases');
  const picker = admin.getByRole('combobox', { name: 'Project' });
  await expect(picker).toHaveValue('Payments');
  // Typing over it finds the others by name: one whose name starts with the chosen one's, then another.
  await picker.fill('Payments');
  await expect(admin.getByRole('option', { name: 'Payments', exact: true })).toBeVisible();
  await admin.getByRole('option', { name: 'Payments EU' }).click();
  await expect(picker).toHaveValue('Payments EU');
  await picker.fill('Defa');
  await admin.getByRole('option', { name: 'Default', exact: true }).click();
  await expect(picker).toHaveValue('Default');
  await admin.getByRole('textbox', { name: 'Title' }).fill('Phishing report');
  // Create is the report form (issue 40): it is sent, and says so.
  await admin.getByRole('button', { name: 'Send' }).click();
  await expect(admin.getByText(/^Case OCO-\d+ has been reported\.$/)).toBeVisible();
  const cases = await (await admin.request.get('/api/v1/default/cases?q=Phishing', { headers })).json();
  expect(cases.items.map((c: { project: { name: string } }) => c.project.name)).toEqual(['Default']);

  // The choice is remembered for the next form.
  await openFromMenu(admin, 'Incidents', 'iaos');
  await openCreate(admin, 'iaos');
  await expect(picker).toHaveValue('Default');
  await picker.fill('Pay');
  await admin.getByRole('option', { name: 'Payments', exact: true }).click();
  await expect(picker).toHaveValue('Payments');
});

test('an incident moves through its lifecycle from its own screen', async () => {
  await openFromMenu(admin, 'Incidents', 'iaos');
  await openCreate(admin, 'iaos');
  await admin.getByRole('textbox', { name: 'Title' }).fill('Checkout is down');
  const picker = admin.getByRole('combobox', { name: 'Project' });
  await expect(picker).toHaveValue('Payments');
  await admin.getByRole('button', { name: 'Send' }).click();
  await expect(admin.getByText(/^Incident IAO-\d+ has been reported\.$/)).toBeVisible();

  await openFromMenu(admin, 'Incidents', 'iaos');
  await admin.locator('tbody tr', { hasText: 'Checkout is down' }).click();
  await admin.getByRole('button', { name: 'Mark stable' }).click();
  await admin
    .getByRole('dialog', { name: /stable\?$/ })
    .getByRole('button', { name: 'Confirm' })
    .click();
  await expect(admin.getByText('Incident marked as stable. Running stable status workflows.')).toBeVisible();
  await expect(admin.getByRole('button', { name: 'Mark stable' })).toHaveCount(0);
  await admin.getByRole('button', { name: 'Mark closed' }).click();
  await admin
    .getByRole('dialog', { name: /^Close / })
    .getByRole('button', { name: 'Confirm' })
    .click();
  await expect(admin.getByText('Incident marked as closed. Running closed status workflows.')).toBeVisible();
  await expect(admin.getByRole('button', { name: 'Reopen' })).toBeVisible();
  await expect(admin.getByRole('button', { name: 'Mark closed' })).toHaveCount(0);
});

test('a new person signs in with an e-mailed code and gets the Member role', async ({ browser }) => {
  const page = await newPage(browser);
  const email = 'newcomer@firewatch.test';
  await page.goto('/default/');
  await expect(page).toHaveURL(/\/default\/landing$/);
  await page.getByRole('link', { name: 'Sign in' }).click();
  await page.getByRole('tab', { name: 'E-mail code' }).click();
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('button', { name: 'Send code' }).click();
  await expect(page.getByText('Verification code sent to your email.')).toBeVisible();
  const code = await codeFor(email);

  await page.getByLabel('Code').fill(code === '123456' ? '654321' : '123456');
  await page.getByRole('button', { name: 'Verify code' }).click();
  await expect(page.getByRole('alert')).toHaveText('Invalid or expired verification code. Please try again.');

  await page.getByLabel('Code').fill(code);
  await page.getByRole('button', { name: 'Verify code' }).click();
  await expect(page).toHaveURL(/\/default\/chat$/);
  // The overview sits behind Settings now (issue 40).
  await page.goto('/default/overview');
  await expect(page.getByText(`Signed in as ${email} (Member)`)).toBeVisible();

  // API keys need an Admin (review F26): a Member may not list them, so gets no screen for them.
  const token = await page.evaluate(() => localStorage.getItem('token'));
  expect((await page.request.get('/api/v1/default/apikeys', { headers: { authorization: `Bearer ${token}` } })).status()).toBe(403);
  await page.goto('/default/apikeys');
  await expect(page.locator('#main-content')).toBeVisible();
  await expect(page.locator('tbody tr', { hasText: 'CI pipeline' })).toHaveCount(0);
  await expect(page.getByRole('link', { name: 'Create' })).toHaveCount(0);
  await page.context().close();
});

test('an organization made from the account menu becomes the address, the banner and the switcher', async () => {
  await admin.getByRole('button', { name: 'Profile' }).click();
  await admin.getByRole('menuitem', { name: 'New organization' }).click();
  const dialog = admin.getByRole('dialog', { name: 'New organization' });
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(dialog.getByText('This field is required')).toHaveCount(2);
  await dialog.getByRole('textbox', { name: 'Name' }).fill('Acme Corp');
  await dialog.getByRole('textbox', { name: 'Description' }).fill('Our biggest customer');
  await dialog.getByRole('button', { name: 'Create' }).click();

  await expect(admin).toHaveURL(/\/acme-corp\/chat$/);
  await expect(admin.getByTestId('organization-banner')).toContainText('Acme Corp');
  // A fresh organization has none of Default's data.
  await openFromMenu(admin, 'Tags', 'tags');
  await expect(admin.getByText('No Tags found')).toBeVisible();

  await admin.getByRole('button', { name: 'Profile' }).click();
  await expect(admin.getByRole('menuitem', { name: /Acme Corp/ })).toBeVisible();
  await admin.getByRole('menuitem', { name: /^Default/ }).click();
  await expect(admin).toHaveURL(/\/default\/chat$/);
  await expect(admin.getByTestId('organization-banner')).toContainText('Default');
});

test('an organization’s name is fixed, and banner settings wait for the team plan', async () => {
  await openFromMenu(admin, 'Organizations', 'organizations');
  await admin.locator('tbody tr', { hasText: 'The default organization' }).click();
  await expect(admin.getByRole('textbox', { name: 'Name' })).toHaveValue('Default');
  await expect(admin.getByRole('textbox', { name: 'Name' })).toBeDisabled();
  // The free plan: banner text and colour are shown but locked (spec: pro team only).
  await expect(admin.getByRole('textbox', { name: 'Banner text' })).toBeDisabled();
  await expect(admin.getByRole('textbox', { name: 'Banner color' })).toBeDisabled();
  await admin.getByRole('textbox', { name: 'Description' }).fill('Where the on-call team works');
  await admin.getByRole('button', { name: 'Save' }).click();
  await expect(admin.getByText('Organization updated successfully.')).toBeVisible();
  await expect(admin.locator('tbody tr', { hasText: 'Where the on-call team works' })).toBeVisible();
});

test('the dark theme toggles and is remembered', async () => {
  const background = () => admin.locator('body').evaluate((el) => getComputedStyle(el).backgroundColor);
  const light = await background();
  await admin.getByRole('button', { name: 'Toggle light/dark mode' }).click();
  await expect.poll(background).not.toBe(light);
  const dark = await background();
  await admin.reload();
  await expect(admin.getByTestId('organization-banner')).toBeVisible();
  expect(await background()).toBe(dark);
  await admin.getByRole('button', { name: 'Toggle light/dark mode' }).click();
  await expect.poll(background).toBe(light);
});

test('sign-in and list screens have no serious accessibility problems', async ({ browser }) => {
  await openFromMenu(admin, 'Tags', 'tags');
  await expect(admin.locator('tbody tr').first()).toBeVisible();
  await expectNoSeriousAxeViolations(admin, 'tags list');
  const visitor = await newPage(browser);
  await visitor.goto('/default/auth/login');
  await expect(visitor.getByRole('heading', { name: 'Sign in to Firewatch' })).toBeVisible();
  await expectNoSeriousAxeViolations(visitor, 'sign-in page');
  await visitor.context().close();
});

test('changing one’s password: required, at least 8 characters, then the new one signs in', async ({ browser }) => {
  // Someone other than the administrator, so other spec files can still sign in as them.
  const page = await newPage(browser);
  const email = 'pat@firewatch.test';
  await page.goto('/default/auth/login');
  await page.getByRole('tab', { name: 'E-mail code' }).click();
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('button', { name: 'Send code' }).click();
  await page.getByLabel('Code').fill(await codeFor(email));
  await page.getByRole('button', { name: 'Verify code' }).click();
  await expect(page).toHaveURL(/\/default\/chat$/);

  await page.getByRole('button', { name: 'Profile' }).click();
  await page.getByRole('menuitem', { name: 'Change password' }).click();
  const dialog = page.getByRole('dialog', { name: 'Change password' });
  await dialog.getByRole('button', { name: 'Change' }).click();
  await expect(dialog.getByText('This field is required').first()).toBeVisible();
  await dialog.getByLabel(/^New password\W*$/).fill('short');
  await dialog.getByLabel('New password again').fill('short');
  await dialog.getByRole('button', { name: 'Change' }).click();
  await expect(dialog.getByText('The password needs at least 8 characters')).toBeVisible();
  await dialog.getByLabel(/^New password\W*$/).fill('a-brand-new-password');
  await dialog.getByLabel('New password again').fill('a-brand-new-pasword');
  await dialog.getByRole('button', { name: 'Change' }).click();
  await expect(dialog.getByText('The two new passwords differ.')).toBeVisible();
  await dialog.getByLabel('New password again').fill('a-brand-new-password');
  await dialog.getByRole('button', { name: 'Change' }).click();
  await expect(page.getByText('Your password was changed.')).toBeVisible();

  await page.getByRole('button', { name: 'Profile' }).click();
  await page.getByRole('menuitem', { name: 'Logout' }).click();
  await expect(page).toHaveURL(/\/default\/auth\/login$/);
  await signIn(page, email, 'not-it-at-all');
  await expect(page.getByRole('alert')).toHaveText('Invalid e-mail or password.');
  await signIn(page, email, 'a-brand-new-password');
  await expect(page).toHaveURL(/\/default\/chat$/);
  await page.context().close();
});

test('list numbers read in en-US whatever the browser speaks', async ({ browser }) => {
  const page = await (await browser.newContext({ locale: 'de-DE' })).newPage();
  await page.goto('/default/auth/login');
  await signIn(page);
  await expect(page).not.toHaveURL(/auth\/login/);
  await page.goto('/default/projects');
  // The seeded Default project: 50000 a year, 2080 hours (a German browser would write 50.000 and 2.080).
  const row = page.locator('tbody tr', { hasText: 'Where incidents, cases and documents go' });
  await expect(row).toContainText('50,000');
  await expect(row).toContainText('2,080');
  await page.context().close();
});
