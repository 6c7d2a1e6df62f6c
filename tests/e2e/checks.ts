import { AxeBuilder } from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';
import { E2E } from './playwright.config.js';

/** A call to the organization `default`'s API with a bearer token (set-up a test is not about). */
export async function api<T = any>(page: Page, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: T }> {
  const response = await page.request.fetch(`/api/v1/default${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    data: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status(), json: (await response.text().then((t) => (t ? JSON.parse(t) : null))) as T };
}

/** axe on the page as it stands, once transitions end, with no serious or critical violation. */
export async function expectNoSeriousAxeViolations(page: Page, where: string) {
  // Mid-fade colours (a notification sliding in) are blends axe reads as low contrast.
  await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running'));
  const { violations } = await new AxeBuilder({ page }).analyze();
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.map((v) => `${where}: ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
}

/** Signs in as the seeded administrator with the password form; returns the bearer token it got. */
export async function signInAsAdmin(page: Page): Promise<string> {
  await page.goto('/default/auth/login');
  await page.getByLabel('E-mail').fill(E2E.adminEmail);
  await page.getByLabel('Password').fill(E2E.adminPassword);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).not.toHaveURL(/auth\/login/);
  return (await page.evaluate(() => localStorage.getItem('token')))!;
}
