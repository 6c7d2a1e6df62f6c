import { expect, test } from '@playwright/test';
import { freePort, startOwnServer, type OwnServer } from './own-server.js';
import { E2E } from './playwright.config.js';
import { startStripeStandin, type StripeStandin } from '../server/billing/stripe-standin.js';

/**
 * An Owner buys Team Pro: the upgrade action, the plans, Stripe Checkout (the local stand-in's page,
 * which posts the signed events Stripe would), and the banner settings it unlocks. Billing needs its
 * own server (the shared one runs without Stripe settings), started here against the stand-in.
 */
test.describe.configure({ mode: 'serial' });

const WEBHOOK_SECRET = 'whsec_e2e_billing';
let server: OwnServer;
let stripe: StripeStandin;
let base: string;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  stripe = await startStripeStandin({ webhookSecret: WEBHOOK_SECRET, webhookUrl: `${base}/api/v1/stripe/webhook` });
  server = await startOwnServer(port, {
    JWT_SECRET: 'e2e-billing-secret-e2e-billing-secret-42',
    STRIPE_SECRET_KEY: 'sk_test_e2e',
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_PRICE_PRO: 'price_e2e_pro',
    STRIPE_PRICE_TEAM_PRO: 'price_e2e_team_pro',
    STRIPE_API_BASE: stripe.url,
  });
});

test.afterAll(async () => {
  await server?.stop();
  await stripe?.close();
});

test('an Owner upgrades to Team Pro through Stripe Checkout, which unlocks the banner settings', async ({ page }) => {
  await page.goto(`${base}/default/auth/login`);
  await page.getByLabel('E-mail').fill(E2E.adminEmail);
  await page.getByLabel('Password').fill(E2E.adminPassword);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('organization-banner')).toContainText(/Trial: \d+ days? left/);

  // Free: the banner settings are locked.
  await page.goto(`${base}/default/organizations`);
  await page.locator('tbody tr', { hasText: 'Default' }).click();
  await expect(page.getByRole('textbox', { name: 'Banner text' })).toBeDisabled();
  // The form sends the locked fields unchanged, which the server lets through.
  await page.getByRole('textbox', { name: 'Description' }).fill('Where the on-call team works');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Organization updated successfully.')).toBeVisible();

  await page.getByRole('link', { name: 'Upgrade' }).click();
  await expect(page).toHaveURL(/\/default\/upgrade$/);
  await expect(page.getByTestId('current-plan')).toContainText('Free trial');
  const teamPro = page.getByRole('region', { name: 'Team Pro' });
  await expect(teamPro.getByText('Organization banner')).toBeVisible();
  await expect(page.getByRole('region', { name: 'Pro', exact: true }).getByRole('button', { name: 'Upgrade to Pro' })).toBeEnabled();
  await teamPro.getByRole('button', { name: 'Upgrade to Team Pro' }).click();

  // Stripe Checkout (the stand-in's page): paying creates the subscription and sends the signed events.
  await expect(page).toHaveURL(new RegExp(`^${stripe.url}/checkout/`));
  await page.getByRole('button', { name: 'Pay and subscribe' }).click();

  await expect(page).toHaveURL(/\/default\/upgrade$/);
  await expect(page.getByText('Successfully upgraded to Team Pro.')).toBeVisible();
  await expect(page.getByTestId('current-plan')).toContainText('Team Pro, renews on');
  await expect(page.getByRole('link', { name: 'Upgrade' })).toHaveCount(0);
  expect([...stripe.subscriptions.values()].map((s) => [s.status, s.items.data[0].price.id])).toEqual([['active', 'price_e2e_team_pro']]);

  // Team Pro: the banner settings open, and the banner shows.
  await page.goto(`${base}/default/organizations`);
  await page.locator('tbody tr', { hasText: 'Default' }).click();
  const bannerText = page.getByRole('textbox', { name: 'Banner text' });
  await expect(bannerText).toBeEnabled();
  await bannerText.fill('Game day drill in progress');
  await page.getByLabel('Banner enabled').check();
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Organization updated successfully.')).toBeVisible();
  await expect(page.getByTestId('organization-banner')).toContainText('Game day drill in progress');

  // Cancelling keeps Team Pro until the paid period ends.
  await page.goto(`${base}/default/upgrade`);
  await page.getByRole('button', { name: 'Cancel subscription' }).click();
  await expect(page.getByText('Subscription cancelled successfully.')).toBeVisible();
  await expect(page.getByTestId('current-plan')).toContainText('Team Pro, cancelled: it ends on');
  await expect(page.getByRole('button', { name: 'Cancel subscription' })).toHaveCount(0);
  expect([...stripe.subscriptions.values()].map((s) => s.cancel_at_period_end)).toEqual([true]);
});
