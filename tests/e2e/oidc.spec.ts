import { expect, test, type Page } from '@playwright/test';
import { freePort, startOwnServer, type OwnServer } from './own-server.js';
import { startSignInProvider } from './oidc-sign-in-provider.js';

/**
 * Sign-in with Google in a browser, against a local OpenID Connect provider (oidc-provider) through its
 * sign-in form and consent page, as a person signs in at Google: the walk types the e-mail and password
 * at the provider's page and clicks Allow there. Firewatch runs as in production, with only
 * GOOGLE_ISSUER pointing at the local provider: a server of its own, since the suite's shared one has
 * no provider configured.
 */
let provider: Awaited<ReturnType<typeof startSignInProvider>>;
let server: OwnServer;
let base: string;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  provider = await startSignInProvider({
    clientId: 'firewatch-e2e',
    clientSecret: 'firewatch-e2e-secret',
    redirectUri: `${base}/implicit/callback`,
    accounts: {
      'walker@example.com': { password: 'correct horse battery', email_verified: true, name: 'Walker' },
      'unverified@example.com': { password: 'staple 42', email_verified: false, name: 'Unverified' },
    },
  });
  server = await startOwnServer(port, {
    GOOGLE_CLIENT_ID: 'firewatch-e2e',
    GOOGLE_CLIENT_SECRET: 'firewatch-e2e-secret',
    GOOGLE_ISSUER: provider.issuer,
    // The first person to sign in becomes the Owner (no password admin).
    FIREWATCH_ADMIN_EMAIL: '',
    FIREWATCH_ADMIN_PASSWORD: '',
  });
});

test.afterAll(async () => {
  await server?.stop();
  await provider?.stop();
});

/** At the provider's pages: its sign-in form, then its consent page. */
async function signInAtProvider(page: Page, email: string, password: string) {
  await expect(page).toHaveURL(new RegExp(`^${provider.issuer}/interaction/`));
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(page.getByRole('heading', { name: 'Allow access' })).toBeVisible();
  await expect(page.getByText(`firewatch-e2e wants to see your email and profile (as ${email}).`)).toBeVisible();
  await page.getByRole('button', { name: 'Allow' }).click();
}

test('Sign in with Google: click the button, sign in at the provider, land signed in', async ({ page }) => {
  // The exchange is held back a moment, to see what the page says meanwhile.
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  await page.route('**/auth/postoauthlogin', async (route) => {
    await held;
    await route.continue();
  });
  await page.goto(`${base}/default/auth/login`);
  await page.getByRole('link', { name: 'Sign in with Google' }).click();
  // A wrong password is refused at the provider's form, which stays there.
  await expect(page).toHaveURL(new RegExp(`^${provider.issuer}/interaction/`));
  await page.getByLabel('Email').fill('walker@example.com');
  await page.getByLabel('Password').fill('wrong password');
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(page.getByRole('alert')).toHaveText('Wrong email or password. Try again.');
  expect(provider.signIns).toEqual([]);
  await signInAtProvider(page, 'walker@example.com', 'correct horse battery');
  await expect(page).toHaveURL(/\/default\/auth\/post-oauth-login$/);
  await expect(page.getByRole('status')).toHaveText('Redirecting to your base cluster...');
  release();
  // The page exchanges the ticket for a session and moves on into the app.
  await expect(page).not.toHaveURL(/auth\/(login|post-oauth-login)/);
  await page.goto(`${base}/default/overview`);
  // The spec's own server is fresh: the first person to sign in owns `default`.
  await expect(page.getByText('Signed in as walker@example.com (Owner)')).toBeVisible();
  expect(provider.signIns).toEqual(['walker@example.com']);
});

test('a refused Google sign-in shows the server message on the post-oauth-login page', async ({ page }) => {
  await page.goto(`${base}/default/auth/login`);
  await page.getByRole('link', { name: 'Sign in with Google' }).click();
  await signInAtProvider(page, 'unverified@example.com', 'staple 42');
  await expect(page).toHaveURL(/\/default\/auth\/post-oauth-login$/);
  await expect(page.getByRole('alert')).toHaveText(
    'Your e-mail address unverified@example.com is not verified at Google. Verify it there, then sign in again.',
  );
  await page.getByRole('link', { name: 'Back to sign-in' }).click();
  await expect(page).toHaveURL(/\/default\/auth\/login$/);
});

test('without Google configured the login page has no Google button', async ({ page }) => {
  // The suite's shared server has no provider.
  const providers = page.waitForResponse((r) => r.url().endsWith('/api/v1/default/auth/providers'));
  await page.goto('/default/auth/login');
  expect(await (await providers).json()).toEqual({ providers: [] });
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Sign in with Google' })).toHaveCount(0);
});
