/**
 * repair-office over HTTP: a DOCX with a broken central directory and wrong CRCs, uploaded with
 * op=repair-office, comes back as a DOCX LibreOffice opens with every paragraph; the op is a
 * tool, so a Free key gets 403.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { officePlugins } from '../plugins/office/index.js';
import { DOC_PARAGRAPHS, damage, libreOfficeText, makeDocx } from '../plugins/office/testing/repair.js';
import { convertAndDownload, startServer, submitConvert, type TestServer } from './helpers.js';

describe('repair-office over HTTP', () => {
  let server: TestServer;
  let dir: string;
  let broken: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'repair-office-e2e-'));
    const good = path.join(dir, 'good.docx');
    [server] = await Promise.all([startServer({ plugins: officePlugins }), makeDocx(good)]);
    broken = path.join(dir, 'broken.docx');
    await writeFile(broken, damage.centralDirectory(damage.crcs(await readFile(good))));
  }, 60_000);
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('repairs a DOCX', async () => {
    const key = await server.createKey('pro');
    const { outputPath, filename } = await convertAndDownload(
      server.url,
      key,
      broken,
      { to: 'docx', op: 'repair-office' },
      120_000,
    );
    expect(path.extname(filename)).toBe('.docx');
    const text = await libreOfficeText(outputPath, 'docx', dir);
    for (const paragraph of DOC_PARAGRAPHS) expect(text).toContain(paragraph);
  }, 150_000);

  it('refuses the op to a Free key with 403', async () => {
    const key = await server.createKey('free');
    expect((await submitConvert(server.url, key, broken, { to: 'docx', op: 'repair-office' })).status).toBe(403);
  });
});
