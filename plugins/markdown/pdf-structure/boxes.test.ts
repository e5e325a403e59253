/**
 * Every body node of a real PDF's model (headings, paragraphs, lists and their items, nested
 * lists, tables) carries its page and its box within that page, from the engine's own lines and
 * tables; and the boxes are where the text is (a heading above the paragraph after it).
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPlugin } from '../../../core/contract/testing/index.js';
import type { Document } from '../../../schema/index.js';
import { bodyNodes, expectBoxedWithinPages } from '../testing/boxes.js';
import { pdfStructurePlugin } from './index.js';

const FIXTURES = path.resolve(import.meta.dirname, '../testing/fixtures');
const REAL = (await readdir(path.join(FIXTURES, 'real'))).filter((f) => f.endsWith('.pdf')).map((f) => `real/${f}`);
const RUNNING = ['running/groff-ms.pdf', 'running/journal-twocolumn.pdf'];

async function structure(file: string): Promise<Document> {
  const run = await runPlugin(pdfStructurePlugin, [{ path: path.join(FIXTURES, file), format: 'pdf' }]);
  const document = JSON.parse(await readFile((run.result as { path: string }).path, 'utf8')) as Document;
  await rm(run.workDir, { recursive: true, force: true });
  return document;
}

describe('boxes on a PDF body', () => {
  it.each([...REAL, ...RUNNING])(
    '%s: every body node has its page and a box within it',
    async (file) => {
      const document = await structure(file);
      expect(document.body.length).toBeGreaterThan(0);
      expectBoxedWithinPages(document);
    },
    60_000,
  );

  it('places headings, tables and lists where their text is', async () => {
    const document = await structure('real/mom-typesetting-p1.pdf');
    const [title, ...rest] = document.body;
    expect(title).toMatchObject({ type: 'heading', page: 1 });
    for (const block of rest) expect(block.box!.y0).toBeGreaterThan(title!.box!.y1 - 1);
    // The tasting-notes table, its wines' column included, runs from the left margin across the page.
    const table = document.body.find((b) => b.type === 'table')!;
    expect(JSON.stringify(table)).toContain('Peelee Island');
    expect(table.box!.x0).toBeLessThan(100);
    expect(table.box!.x1).toBeGreaterThan(400);
    // The second example's heading is above its first paragraph, which starts at the margin.
    const index = document.body.findIndex((b) => b.type === 'heading' && b.text.startsWith('Example 2'));
    const [heading, next] = [document.body[index]!, document.body[index + 1]!];
    expect(next.box!.y0).toBeGreaterThanOrEqual(heading.box!.y1 - 1);
    expect(next.box!.x0).toBe(heading.box!.x0);
    const list = bodyNodes(document).filter((n) => n.type === 'listItem');
    expect(list.length).toBeGreaterThan(0);
    for (const item of list) expect(item.box!.y0).toBeGreaterThan(table.box!.y0);
  }, 60_000);
});
