/**
 * The web app in a real browser (Debian's Chromium through playwright-core) against a real server
 * with a real SMTP server for its mail: sign up, verify through the mailed link, make a key and
 * use it over REST; convert a PNG to WEBP with live progress and check the downloaded bytes; a
 * Free account's second extraction try refused with the trial message; key generation refused
 * while the e-mail is unverified; a PNG fetched from a URL and chained PNG → JPG → WEBP in one
 * pipeline job. Each page is screenshotted to .tmp/screenshots/.
 */
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PlanId } from '../schema/index.js';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { unzipSync } from 'fflate';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, submitConvert, type TestServer } from './helpers.js';
import {
  HAVE_CHROMIUM,
  launchBrowser,
  screenshot,
  startMailServer,
  verificationLink,
  type MailServer,
} from './web/harness.js';

const PASSWORD = 'correct horse battery';
/** For expect.poll: pages answer within seconds, more on a loaded CI machine. */
const SLOW = { timeout: 20_000, interval: 100 };

describe.skipIf(!HAVE_CHROMIUM)('web app in Chromium', { timeout: 120_000 }, () => {
  let mail: MailServer;
  let server: TestServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    mail = await startMailServer();
    // Private addresses allowed: the URL import case fetches from a server on 127.0.0.1.
    server = await startServer({ env: { SMTP_URL: mail.url, IMPORT_ALLOW_PRIVATE: '1' } });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await mail?.close();
  });

  /** A fresh browser profile (its own cookies) at `width` px. */
  async function newPage(width = 1280): Promise<Page> {
    const context = await browser.newContext({ baseURL: server.url, viewport: { width, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    return page;
  }

  let accounts = 0;
  async function signUp(page: Page): Promise<string> {
    const email = `web-${Date.now()}-${++accounts}@example.test`;
    await page.goto('/signup');
    await page.getByLabel('E-mail address').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.waitForURL('**/account**');
    await expect.poll(() => page.locator('h1').textContent(), SLOW).toBe('Your account');
    return email;
  }

  it('signs up, verifies through the mailed link, generates a key, uses it over REST and revokes it', async () => {
    const page = await newPage();
    await page.goto('/signup');
    await screenshot(page, 'sign-up');
    expect(await unlabelled(page)).toEqual([]);
    const email = await signUp(page);
    await expect.poll(() => page.locator('#verify-notice').isVisible(), SLOW).toBe(true);
    await screenshot(page, 'account-unverified');

    const link = verificationLink(await mail.waitFor(email));
    expect(link.startsWith(`${server.url}/verify?token=`)).toBe(true);
    await page.goto(link);
    await expect.poll(() => page.getByText('Your e-mail address is verified').isVisible(), SLOW).toBe(true);
    await screenshot(page, 'verified');
    // The link is single-use: opened again (here in another browser), it is refused in plain words.
    const other = await newPage();
    await other.goto(link);
    await expect.poll(() => other.locator('.notice.error').isVisible(), SLOW).toBe(true);

    await page.getByRole('link', { name: 'Go to your account' }).click();
    await expect.poll(() => page.locator('.badge.ok').textContent(), SLOW).toBe('verified');
    await page.getByLabel('Name (optional)').fill('browser test');
    await page.getByRole('button', { name: 'Generate key' }).click();
    const keyField = page.locator('#new-key-value');
    await expect.poll(() => keyField.inputValue(), SLOW).toMatch(/^ck_live_/);
    const key = await keyField.inputValue();
    await expect.poll(() => page.locator('table').first().textContent(), SLOW).toContain('browser test');
    // The overage toggle, where the plan offers it (every plan but Enterprise).
    // A click, not check(): the box follows the server's answer, which may come after Playwright looks.
    await page.getByLabel(/Continue past the allowance/).click();
    await expect
      .poll(() => page.locator('#credits-title').locator('..').textContent(), SLOW)
      .toContain('Overage is on');
    await screenshot(page, 'account');
    expect(await unlabelled(page)).toEqual([]);
    await page.setViewportSize({ width: 375, height: 800 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await screenshot(page, 'account-375px');
    await page.setViewportSize({ width: 1440, height: 900 });

    // The key works with a plain REST request, as curl would send it.
    const credits = await fetch(`${server.url}/api/v1/credits`, { headers: { authorization: `Bearer ${key}` } });
    expect(credits.status).toBe(200);
    expect(await credits.json()).toMatchObject({ plan: 'Free', creditsIncluded: 250, overageEnabled: true });
    // The panel shows the key as used once the server counted it.
    await page.reload();
    await expect.poll(() => page.locator('td[data-label="Last used"]').first().textContent(), SLOW).not.toBe('never');

    // Revoked in the panel (two steps), the key stops working at once.
    await page.getByRole('button', { name: /^Revoke key ck_live_/ }).click();
    await page.getByRole('button', { name: 'Confirm revoke' }).click();
    await expect.poll(() => page.getByText('No keys yet.').isVisible(), SLOW).toBe(true);
    expect((await fetch(`${server.url}/api/v1/credits`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(
      401,
    );

    // Signing out ends the session; signing in again starts one.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/signin');
    await page.goto('/account');
    await page.waitForURL('**/signin');
    await page.getByLabel('E-mail address').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await screenshot(page, 'sign-in');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/convert');
  });

  it('refuses key generation while the e-mail is unverified, in plain words (all by keyboard)', async () => {
    const page = await newPage();
    await page.goto('/signup');
    await tabTo(page, '#email');
    await page.keyboard.type(`keys-${Date.now()}@example.test`);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForURL('**/account**');
    // The account page renders its form once its data arrives: tab only when the button is there.
    await page.locator('button.primary[type=submit]').waitFor();
    await tabTo(page, 'button.primary[type=submit]');
    const answer = page.waitForResponse(
      (response) =>
        response.url().endsWith('/graphql') && (response.request().postData() ?? '').includes('createApiKey'),
    );
    await page.keyboard.press('Enter');
    const refusal = await (await answer).json();
    expect(refusal.errors[0].extensions.code).toBe('FORBIDDEN');
    const error = page.locator('#key-error');
    await expect.poll(() => error.isVisible(), SLOW).toBe(true);
    expect(await error.textContent()).toMatch(/verif/i);
    await screenshot(page, 'account-key-refused');
    expect(await page.locator('#new-key-value').count()).toBe(0);
  });

  it('converts a PNG to WEBP with live progress and downloads it', async () => {
    const page = await newPage();
    await signUp(page);
    await page.getByRole('link', { name: 'Convert' }).click();
    await page.waitForURL('**/convert');
    const png = await sharp({ create: { width: 321, height: 123, channels: 3, background: { r: 40, g: 120, b: 200 } } })
      .png()
      .toBuffer();
    // Dropped on the drop zone, as a person drags it from their desktop.
    await page.evaluate(
      (bytes) => {
        const transfer = new DataTransfer();
        transfer.items.add(new File([new Uint8Array(bytes)], 'photo.png', { type: 'image/png' }));
        document
          .querySelector('.drop')!
          .dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
      },
      [...png],
    );
    // Options are checked against the op's JSON Schema before anything is uploaded.
    await page.locator('#action').selectOption('tool:resize');
    await page.locator('#opt-resize-width').fill('0');
    await page.locator('form.convert button[type=submit]').click();
    await expect
      .poll(() => page.locator('.field-error').first().textContent(), SLOW)
      .toBe('Enter a value from 1 to 10000.');
    expect(await page.locator('.task').count()).toBe(0);

    await page.locator('#action').selectOption('convert:webp');
    await screenshot(page, 'convert-options');
    expect(await unlabelled(page)).toEqual([]);
    const requests: { method: string; url: string; body: string }[] = [];
    page.on('request', (request) =>
      requests.push({ method: request.method(), url: request.url(), body: request.postData() ?? '' }),
    );
    await page.getByRole('button', { name: 'Convert to WEBP' }).click();

    const task = page.locator('.task').first();
    await expect.poll(() => task.getAttribute('class'), { timeout: 60_000 }).toMatch(/\bdone\b/);
    expect(await task.locator('progress').evaluate((bar: HTMLProgressElement) => bar.value)).toBe(100);
    // Progress came live over the jobUpdated subscription (server-sent events), not by polling.
    const live = requests.filter(
      (r) => r.method === 'GET' && new URL(r.url).searchParams.get('query')?.includes('jobUpdated'),
    );
    expect(live).toHaveLength(1);
    expect(requests.filter((r) => r.body.includes('query Job('))).toEqual([]);
    await screenshot(page, 'convert');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      task.getByRole('link', { name: 'Download' }).click(),
    ]);
    const bytes = await readFile((await download.path())!);
    const meta = await sharp(bytes).metadata();
    expect(meta).toMatchObject({ format: 'webp', width: 321, height: 123 });

    // Usable on a phone: nothing wider than a 375 px screen.
    await page.setViewportSize({ width: 375, height: 800 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await screenshot(page, 'convert-375px');
  });

  it('converts a file fetched from a URL through a "then…" chain in one pipeline job', async () => {
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#c03060' } })
      .png()
      .toBuffer();
    const files = http.createServer((_request, response) =>
      response.writeHead(200, { 'content-type': 'image/png' }).end(png),
    );
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    try {
      const page = await newPage();
      await signUp(page);
      await page.goto('/convert');
      await page
        .getByLabel('Or convert a file from a URL')
        .fill(`http://127.0.0.1:${(files.address() as AddressInfo).port}/pics/sample.png`);
      await page.locator('#action').selectOption('convert:jpg');
      await page.locator('#next-step').selectOption('convert:webp');
      expect(await page.locator('.chain .steps li').count()).toBe(1);
      expect(await unlabelled(page)).toEqual([]);
      await screenshot(page, 'convert-url-chain');
      const sent = page.waitForRequest((request) => (request.postData() ?? '').includes('createPipeline'));
      await page.getByRole('button', { name: 'Convert to JPG, then 1 more step' }).click();
      // The first step carries its options form (JPG's quality) under its plugin's field; the later ones
      // their defaults.
      expect(JSON.parse((await sent).postData()!).variables.pipeline).toEqual({
        input: { url: expect.stringContaining('/pics/sample.png') },
        steps: [expect.objectContaining({ to: 'jpg', options: expect.any(Object) }), { to: 'webp' }],
      });

      const task = page.locator('.task').first();
      await expect.poll(() => task.getAttribute('class'), { timeout: 60_000 }).toMatch(/\bdone\b/);
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        task.getByRole('link', { name: 'Download sample.webp' }).click(),
      ]);
      expect(await sharp(await readFile((await download.path())!)).metadata()).toMatchObject({
        format: 'webp',
        width: 64,
        height: 48,
      });
    } finally {
      await new Promise((resolve) => files.close(resolve));
    }
  });

  it("refuses a Free account's second extraction try with the trial message", async () => {
    const page = await newPage();
    await signUp(page);
    await page.goto('/convert');
    const pdf = await samplePdf();
    const run = async () => {
      await page.locator('#files').setInputFiles({ name: 'notes.pdf', mimeType: 'application/pdf', buffer: pdf });
      await page.locator('#action').selectOption('extract:pdf-to-markdown');
      await page.getByRole('button', { name: /^Run / }).click();
      const task = page.locator('.task').first();
      await expect.poll(() => task.getAttribute('class'), { timeout: 60_000 }).toMatch(/\b(done|failed)\b/);
      return task;
    };

    const first = await run();
    expect(await first.getAttribute('class')).toMatch(/\bdone\b/);
    await expect.poll(() => first.locator('.markdown h1').textContent(), SLOW).toContain('Quarterly notes');
    await screenshot(page, 'extraction');

    await page.getByRole('button', { name: 'Clear' }).click();
    const second = await run();
    expect(await second.getAttribute('class')).toMatch(/\bfailed\b/);
    expect(await second.locator('[role=alert]').textContent()).toMatch(/free try of pdf-to-markdown has been used/i);
    await screenshot(page, 'extraction-trial-used');
  });

  it(
    'on Business: merges PDFs, converts several images into one ZIP, highlights search hits, marks doubtful CV ' +
      'fields, pages through the history and mints a signed URL',
    async () => {
      const page = await newPage();
      await signUp(page);
      // An operator's upgrade (and a verified address, for the key below), as the admin CLI would make them.
      const plan: PlanId = 'business';
      const accountId = await accountIdOf(page);
      await server.server.runtime.services.accounts.updateAccount(accountId, { plan, emailVerified: true });
      await page.goto('/convert');
      const task = page.locator('.task').first();
      const finished = () =>
        expect.poll(() => task.getAttribute('class'), { timeout: 60_000 }).toMatch(/\b(done|failed)\b/);

      const pdf = await samplePdf();
      await page.locator('#files').setInputFiles([
        { name: 'a.pdf', mimeType: 'application/pdf', buffer: pdf },
        { name: 'b.pdf', mimeType: 'application/pdf', buffer: pdf },
      ]);
      await page.locator('#action').selectOption('merge');
      await page.getByRole('button', { name: 'Merge 2 PDFs' }).click();
      await finished();
      expect(await task.getAttribute('class'), (await task.textContent()) ?? '').toMatch(/\bdone\b/);
      const merged = await PDFDocument.load(await downloadOf(page, task.getByRole('link', { name: 'Download' })));
      expect(merged.getPageCount()).toBe(2);

      await page.getByRole('button', { name: 'Clear' }).click();
      const png = await sharp({ create: { width: 20, height: 10, channels: 3, background: '#c33' } })
        .png()
        .toBuffer();
      await page.locator('#files').setInputFiles([
        { name: 'one.png', mimeType: 'image/png', buffer: png },
        { name: 'two.png', mimeType: 'image/png', buffer: png },
      ]);
      await page.locator('#action').selectOption('convert:jpg');
      await page.getByLabel('All in one ZIP (batch, Pro and up)').check();
      await page.locator('form.convert button[type=submit]').click();
      await finished();
      expect(await task.getAttribute('class'), (await task.textContent()) ?? '').toMatch(/\bdone\b/);
      const zip = unzipSync(new Uint8Array(await downloadOf(page, task.getByRole('link', { name: 'Download ZIP' }))));
      expect(Object.keys(zip).sort()).toEqual(['one.jpg', 'two.jpg']);

      await page.getByRole('button', { name: 'Clear' }).click();
      await page.locator('#files').setInputFiles({
        name: 'memo.txt',
        mimeType: 'text/plain',
        buffer: Buffer.from('The invoice is due on Friday.\nPay the invoice soon.\n'),
      });
      await page.locator('#action').selectOption('extract:file-search');
      await page.getByLabel(/^Query/).fill('invoice');
      await page.getByRole('button', { name: /^Run / }).click();
      await finished();
      await expect.poll(() => task.locator('mark').allTextContents(), SLOW).toEqual(['invoice', 'invoice']);
      await screenshot(page, 'file-search');
      expect(await unlabelled(page)).toEqual([]);

      await page.getByRole('button', { name: 'Clear' }).click();
      await page
        .locator('#files')
        .setInputFiles({ name: 'cv.pdf', mimeType: 'application/pdf', buffer: await sampleCv() });
      await page.locator('#action').selectOption('extract:parse-cv');
      await page.getByRole('button', { name: /^Run / }).click();
      await finished();
      const cv = task.locator('table.cv');
      await expect.poll(() => cv.textContent(), SLOW).toContain('jane.doe@example.com');
      // Values below 0.8 confidence are marked for review (here years of experience, inferred from dates; LinkedIn,
      // absent).
      const lowConfidence = await cv.locator('tr.low-confidence th').allTextContents();
      expect(lowConfidence).toContain('Years of experience');
      expect(await cv.locator('tr', { hasText: 'Email' }).getAttribute('class')).toBeNull();
      await screenshot(page, 'parse-cv');

      // More history than one page holds: 5 jobs from the page and 8 over REST with a key of the account.
      const { key } = await server.server.runtime.services.accounts.createKey(accountId);
      for (let i = 0; i < 8; i++)
        expect((await submitConvert(server.url, key, { name: `api-${i}.png`, data: png }, { to: 'webp' })).status).toBe(
          200,
        );
      await page.goto('/account');
      const history = page.locator('#history-title').locator('..');
      await expect.poll(() => history.locator('.pager').textContent(), SLOW).toContain('1–10 of 13');
      await history.getByRole('button', { name: 'Older' }).click();
      await expect.poll(() => history.locator('.pager').textContent(), SLOW).toContain('11–13 of 13');
      expect(await history.locator('tbody td:nth-child(3)').allTextContents()).toEqual(['web', 'web', 'web']);
      expect(await history.getByRole('button', { name: 'Older' }).isDisabled()).toBe(true);
      await history
        .getByRole('button', { name: /Make a signed URL/ })
        .last()
        .click();
      await expect.poll(() => history.getByRole('link', { name: 'Signed link' }).count(), SLOW).toBe(1);
      await screenshot(page, 'account-business');
    },
  );
});

/** Presses Tab until `selector` has the focus (the page is usable without a mouse). */
async function tabTo(page: Page, selector: string): Promise<void> {
  for (let presses = 0; presses < 25; presses++) {
    if (await page.evaluate((wanted) => document.activeElement?.matches(wanted) ?? false, selector)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${selector}`);
}

/** Form controls with no accessible name (a label, aria-label or aria-labelledby). */
function unlabelled(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll<HTMLInputElement>('input, select, textarea')]
      .filter(
        (control) =>
          control.type !== 'hidden' &&
          !control.labels?.length &&
          !control.getAttribute('aria-label') &&
          !control.getAttribute('aria-labelledby'),
      )
      .map((control) => control.outerHTML),
  );
}

/** The account id of the page's session, from its own GraphQL `me`. */
async function accountIdOf(page: Page): Promise<string> {
  return page.evaluate(async () => {
    const csrf =
      document.cookie
        .split('; ')
        .find((part) => part.startsWith('transmute_csrf='))
        ?.slice('transmute_csrf='.length) ?? '';
    const response = await fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': decodeURIComponent(csrf) },
      body: JSON.stringify({ query: '{ me { id } }' }),
    });
    return ((await response.json()) as { data: { me: { id: string } } }).data.me.id;
  });
}

async function downloadOf(page: Page, link: ReturnType<Page['locator']>): Promise<Buffer> {
  const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
  return readFile((await download.path())!);
}

/** A one-page CV with a text layer. */
async function sampleCv(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const regular = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([595, 842]);
  const lines: [string, number, typeof bold][] = [
    ['Jane Doe', 22, bold],
    ['Senior Software Engineer', 13, regular],
    ['jane.doe@example.com  |  +44 20 7946 0000  |  London, UK', 11, regular],
    ['Experience', 15, bold],
    ['Senior Software Engineer, Acme Ltd (2018 - present)', 11, regular],
    ['Software Engineer, Initech (2012 - 2018)', 11, regular],
    ['Skills', 15, bold],
    ['TypeScript, Go, PostgreSQL, Kubernetes', 11, regular],
  ];
  for (const [index, [text, size, font]] of lines.entries())
    page.drawText(text, { x: 60, y: 770 - index * 28, size, font });
  return Buffer.from(await doc.save());
}

async function samplePdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const regular = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([595, 842]);
  page.drawText('Quarterly notes', { x: 60, y: 760, size: 26, font: bold });
  page.drawText('Revenue grew in every region this quarter, led by the north.', {
    x: 60,
    y: 720,
    size: 12,
    font: regular,
  });
  page.drawText('The team shipped the new web app and its account panel.', { x: 60, y: 700, size: 12, font: regular });
  return Buffer.from(await doc.save());
}
