import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { E2E } from './playwright.config.js';
import { closeContexts } from './checks.js';

/**
 * Issue 5 in the browser, against the real server: a signed-in user uploads a PDF, watches it index,
 * asks about it, opens the citation, likes the answer and shares the chat; the shared view opens
 * signed out; a visitor on the landing page asks a question and gets a cited answer.
 */
test.describe.configure({ mode: 'serial' });
test.afterAll(closeContexts);

const shots = join(import.meta.dirname, '..', '..', 'test-results', 'ai');
mkdirSync(shots, { recursive: true });
const shot = (page: Page, name: string) => page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
const projectName = `AI handbook ${Date.now() % 100000}`;
let shareLink = '';

async function makePdf(path: string) {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const pages = [
    ['Security handbook', 'This handbook covers key management.'],
    ['To rotate the kraken API keys, run keyctl rotate --all', 'and then restart the edge proxies one at a time.'],
  ];
  for (const lines of pages) {
    const page = doc.addPage([600, 800]);
    lines.forEach((line, i) => page.drawText(line, { x: 40, y: 750 - i * 18, size: 12, font }));
  }
  writeFileSync(path, await doc.save());
}

test('a signed-in user uploads a PDF, asks about it, opens the citation, likes and shares the answer', async ({ browser }) => {
  const page = await (await browser.newContext()).newPage();
  await page.goto('/default/chat');
  // Signed out, a protected page leads to the landing page; its Sign in link returns here once signed in.
  await page.getByRole('link', { name: 'Sign in' }).click();
  await page.getByLabel('E-mail').fill(E2E.adminEmail);
  await page.getByLabel('Password').fill(E2E.adminPassword);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).not.toHaveURL(/auth\/login/);
  const created = await page.evaluate(async (name) => {
    const res = await fetch('/api/v1/default/projects', {
      method: 'POST',
      headers: { authorization: `Bearer ${localStorage.getItem('token')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name }),
    });
    return res.status;
  }, projectName);
  expect(created).toBe(201);
  await page.goto('/default/chat');
  await expect(page.getByText('Connected')).toBeVisible();

  await page.getByLabel('Project').click();
  await page.getByRole('option', { name: projectName }).click();
  await page.getByLabel('Who may retrieve it').click();
  await page.getByRole('option', { name: /^Public/ }).click();

  const pdf = join(shots, 'keys.pdf');
  await makePdf(pdf);
  await page.getByTestId('upload-input').setInputFiles(pdf);
  const row = page.getByTestId('submission').filter({ hasText: 'keys.pdf' });
  await expect(row).toBeVisible();
  await expect(row.getByTestId('submission-status')).toHaveText('indexed', { timeout: 60_000 });
  await shot(page, '1-indexed');

  // A larger file goes over the streamed HTTP route; on a slowed link its upload shows a progress bar
  // with the share sent, then it is indexed, found by global search and answered from.
  const walrus = join(shots, 'walrus.md');
  const filler = Array.from({ length: 3000 }, (_, i) => `Shift log ${i}: the on-call engineer reviewed dashboards and found nothing unusual.`).join('\n\n');
  writeFileSync(walrus, `# Queue operations\n\nTo drain the walrus queue, run walrusctl drain --graceful before a deploy.\n\n${filler}\n`);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 64 * 1024 });
  await page.getByTestId('upload-input').setInputFiles(walrus);
  const progress = page.getByTestId('upload-progress');
  await expect(progress).toContainText(/Uploading walrus\.md: \d+%/);
  await expect.poll(async () => Number(await progress.getByRole('progressbar').getAttribute('aria-valuenow'))).toBeGreaterThan(0);
  await shot(page, '1-upload-progress');
  await expect(progress).toBeHidden({ timeout: 60_000 });
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  const walrusRow = page.getByTestId('submission').filter({ hasText: 'walrus.md' });
  await expect(walrusRow.getByTestId('submission-status')).toHaveText('indexed', { timeout: 60_000 });
  const found = await page.evaluate(async () => {
    const res = await fetch('/api/v1/default/search?q=walrusctl', { headers: { authorization: `Bearer ${localStorage.getItem('token')}` } });
    return ((await res.json()) as { results: { type: string; title: string }[] }).results;
  });
  expect(found).toContainEqual(expect.objectContaining({ type: 'FileSubmissions', title: 'walrus.md' }));

  await page.getByLabel('Your question').fill('How do I rotate the kraken API keys?');
  await page.getByRole('button', { name: 'Ask' }).click();
  const answer = page.getByTestId('message-assistant').last();
  await expect(answer).toContainText('keyctl rotate --all', { timeout: 30_000 });
  await expect(answer.getByRole('list', { name: 'Sources' })).toContainText('keys.pdf (page 2)');
  await shot(page, '2-answer');

  await answer.getByRole('button', { name: 'Open source 1: keys.pdf' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('keys.pdf — page 2');
  await expect(dialog.getByTestId('source-passage')).toContainText('rotate the kraken API keys');
  await shot(page, '3-citation');
  await dialog.getByRole('button', { name: 'Close' }).click();

  await answer.getByRole('button', { name: 'Like this answer', exact: true }).click();
  await expect(page.getByText('Thank you for your feedback!')).toBeVisible();
  await expect(answer.getByRole('button', { name: 'Like this answer', exact: true })).toHaveAttribute('aria-pressed', 'true');
  // The liked answer is curated into the project's sources as a Q&A, indexed like any upload.
  const curated = page.getByTestId('submission').filter({ hasText: 'Q&A: How do I rotate the kraken API keys?' });
  await expect(curated.getByTestId('submission-status')).toHaveText('indexed', { timeout: 60_000 });

  await expect(page).toHaveURL(/chat\?chat_id=/);
  await page.getByRole('button', { name: 'Share' }).click();
  // What becomes public is shown first: each cited source and who may retrieve it.
  await expect(page.getByRole('dialog', { name: 'Share this chat publicly?' }).getByRole('list', { name: 'Cited sources' })).toContainText('keys.pdf');
  await page.getByRole('button', { name: 'Share publicly' }).click();
  const link = page.getByTestId('share-link');
  await expect(link).toBeVisible();
  shareLink = (await link.getAttribute('href'))!;
  expect(shareLink).toMatch(/\/default\/landing\?chat_id=[0-9a-f-]{36}$/);

  // Reopening the chat from its address brings back the conversation and the like.
  await page.reload();
  await expect(page.getByTestId('message-assistant').last()).toContainText('keyctl rotate --all');
  await expect(page.getByRole('list', { name: 'Chats' })).toContainText('How do I rotate the kraken API keys?');

  // The streamed upload answers too, in a chat of its own.
  await page.getByRole('button', { name: 'New chat' }).click();
  await page.getByLabel('Your question').fill('How do I drain the walrus queue?');
  await page.getByRole('button', { name: 'Ask' }).click();
  const walrusAnswer = page.getByTestId('message-assistant').last();
  await expect(walrusAnswer).toContainText('walrusctl drain --graceful', { timeout: 30_000 });
  await expect(walrusAnswer.getByRole('list', { name: 'Sources' })).toContainText('walrus.md');
});

test('the shared chat opens read-only for someone signed out, citations included', async ({ browser }) => {
  const page = await (await browser.newContext()).newPage();
  await page.goto(shareLink);
  await expect(page.getByText('Read-only')).toBeVisible();
  const answer = page.getByTestId('message-assistant').last();
  await expect(answer).toContainText('keyctl rotate --all');
  await expect(page.getByRole('button', { name: 'Like this answer', exact: true })).toHaveCount(0);
  await expect(page.getByLabel('Your question')).toHaveCount(0);
  await answer.getByRole('button', { name: 'Open source 1: keys.pdf' }).click();
  await expect(page.getByRole('dialog').getByTestId('source-passage')).toContainText('rotate the kraken API keys');
  await shot(page, '4-shared');
});

test('a visitor on the landing page asks a question and gets a cited answer', async ({ browser }) => {
  const page = await (await browser.newContext()).newPage();
  await page.goto('/default/landing');
  await expect(page.getByRole('heading', { name: 'Ask our public knowledge base' })).toBeVisible();
  await expect.poll(() => page.evaluate(() => localStorage.getItem('anonymous_key'))).toMatch(/^fwanon_/);
  await page.getByLabel('Your question').fill('How are the kraken API keys rotated?');
  await page.getByRole('button', { name: 'Ask' }).click();
  const answer = page.getByTestId('message-assistant').last();
  await expect(answer).toContainText('keyctl rotate --all', { timeout: 30_000 });
  // The signed-in user's liked answer is public material now (it cites a public PDF): both are cited.
  await expect(answer.getByRole('list', { name: 'Sources' })).toContainText('Q&A: How do I rotate the kraken API keys?');
  await expect(answer.getByRole('button', { name: /^Open source \d: keys\.pdf$/ }).first()).toBeVisible();
  await shot(page, '5-landing');
  // The visitor's key opens nothing private.
  const status = await page.evaluate(
    async () => (await fetch('/api/v1/default/chats', { headers: { authorization: `Bearer ${localStorage.getItem('anonymous_key')}` } })).status,
  );
  expect(status).toBe(401);
});
