/**
 * The convert page's document views in a real browser (Debian's Chromium through playwright-core)
 * against a real server: a real DOCX through op=structure shows the node tree (heading levels, its
 * tables drawn as tables with their spans), a real PPTX shows each node's slide number, and op=chunk
 * on it shows each chunk with its heading path, token count (within maxTokens) and slide. Screenshots
 * land in .tmp/screenshots/.
 */
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startServer, type TestServer } from './helpers.js';
import { HAVE_CHROMIUM, launchBrowser, screenshot } from './web/harness.js';

const PASSWORD = 'correct horse battery';
const SLOW = { timeout: 30_000, interval: 100 };
// Public test files nobody here wrote (bench/structure/files/README.md, test/fixtures/documents/README.md).
const DOCX = path.join(ROOT, 'bench/structure/files/docx/poi-form_footnotes.docx');
const PPTX = path.join(ROOT, 'test/fixtures/documents/SampleShow.pptx');

describe.skipIf(!HAVE_CHROMIUM)('convert page: document structure and chunks', { timeout: 180_000 }, () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startServer();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** A signed-up Pro account's convert page (tool ops need Pro). */
  async function proPage(): Promise<Page> {
    const context = await browser.newContext({ baseURL: server.url, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    await page.goto('/signup');
    await page.getByLabel('E-mail address').fill(`docs-${Date.now()}@example.test`);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.waitForURL('**/account**');
    const accountId = await page.evaluate(async () => {
      const csrf = document.cookie
        .split('; ')
        .find((part) => part.startsWith('transmute_csrf='))
        ?.slice('transmute_csrf='.length);
      const response = await fetch('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': decodeURIComponent(csrf ?? '') },
        body: JSON.stringify({ query: '{ me { id } }' }),
      });
      return ((await response.json()) as { data: { me: { id: string } } }).data.me.id;
    });
    // An operator's upgrade, as the admin CLI would make it.
    await server.server.runtime.services.accounts.updateAccount(accountId, { plan: 'pro' });
    await page.goto('/convert');
    return page;
  }

  async function run(page: Page, file: string, action: string, options: Record<string, string> = {}) {
    await page.locator('#files').setInputFiles(file);
    await page.locator('#action').selectOption(action);
    for (const [field, value] of Object.entries(options)) {
      const control = page.locator(`#opt-${field}`);
      if ((await control.evaluate((element) => element.tagName)) === 'SELECT') await control.selectOption(value);
      else await control.fill(value);
    }
    await page.locator('form.convert button[type=submit]').click();
    const task = page.locator('.task').first();
    await expect.poll(() => task.getAttribute('class'), SLOW).toMatch(/\b(done|failed)\b/);
    expect(await task.getAttribute('class'), (await task.textContent()) ?? '').toMatch(/\bdone\b/);
    return task;
  }

  it('draws a DOCX as a node tree: heading levels, tables as tables with their spans', async () => {
    const page = await proPage();
    const task = await run(page, DOCX, 'tool:structure');
    const tree = task.locator('.doc-structure');
    await expect.poll(() => tree.isVisible(), SLOW).toBe(true);
    // The form's title is a level-4 heading in the DOCX's own styles.
    const heading = tree.locator('.node-heading', { hasText: 'VISA APPLICATION FORM' }).first();
    expect(await heading.locator('.node-kind').textContent()).toBe('heading 4');
    // Its tables are real tables: header cells, and the 13-column span of the first field.
    const tables = tree.locator('table.doc-table');
    expect(await tables.count()).toBeGreaterThanOrEqual(6);
    const spanning = tree.locator('th[colspan="13"]').first();
    expect(await spanning.textContent()).toContain('01 - Full name');
    expect(await tree.locator('.node-footnote').count()).toBeGreaterThan(0);
    // The download is the same model as JSON.
    expect(await task.getByRole('link', { name: /Download .*\.json/ }).count()).toBe(1);
    await screenshot(page, 'convert-structure-docx');
    await page.setViewportSize({ width: 375, height: 800 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  });

  it("draws a PPTX's slides with their numbers, and its chunks with heading path, tokens and slide", async () => {
    const page = await proPage();
    const structure = await run(page, PPTX, 'tool:structure');
    const tree = structure.locator('.doc-structure');
    await expect.poll(() => tree.isVisible(), SLOW).toBe(true);
    const slides = tree.locator(':scope > .doc-tree > .node-section');
    expect(await slides.count()).toBe(2);
    expect(await slides.nth(1).locator('.node-text').first().textContent()).toBe('slide 2: This is the second slide');
    expect(await slides.nth(1).locator('.node-page').first().textContent()).toBe('p. 2');
    expect(await tree.locator('.doc-notes').first().textContent()).toContain('I am the notes of the first slide');

    await page.getByRole('button', { name: 'Clear' }).click();
    const chunked = await run(page, PPTX, 'tool:chunk', { maxTokens: '20', tokenizer: 'cl100k' });
    const chunks = chunked.locator('.doc-chunks .chunk');
    await expect.poll(() => chunks.count(), SLOW).toBeGreaterThan(1);
    for (const chunk of await chunks.all()) {
      const tokens = Number((await chunk.locator('.chunk-tokens').textContent())!.replace(' tokens', ''));
      expect(tokens).toBeGreaterThan(0);
      expect(tokens).toBeLessThanOrEqual(20);
    }
    const second = chunks.filter({ hasText: 'This is the second slide' }).first();
    expect(await second.locator('.chunk-path').textContent()).toContain('This is the second slide');
    expect(await second.locator('.chunk-pages').textContent()).toContain('page 2');
    await screenshot(page, 'convert-chunks-pptx');
  });
});
