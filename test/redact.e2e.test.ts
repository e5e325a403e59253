/**
 * op=redact through HTTP: a PDF with every kind of secret uploaded to POST /api/v1/convert comes
 * back with none of them left (pdftotext, QDF, raw bytes) and toolReport {op: redact, detected};
 * a PDF with no match comes back byte for byte with detected 0; `redact` is validated at submit.
 * A scan made searchable by op ocr and then redacted loses the words from its text layer and
 * from the picture (tesseract reads the rendered page again).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ALL_PATTERNS,
  KEPT,
  SECRETS,
  extractedText,
  libreOfficeFixture,
  pdfLibFixture,
  residue,
} from '../plugins/redact/testing/fixtures.js';
import { runProcess } from '../core/engines/process.js';
import { scannedPdf } from '../plugins/ocr/testing/fixtures.js';
import { ocrPlugins } from '../plugins/ocr/index.js';
import { manyPagePdf } from '../plugins/pdf/testing/fixtures.js';
import { redactPlugins } from '../plugins/redact/index.js';
import { convertAndDownload, startServer, submitConvert, type TestServer } from './helpers.js';

describe('redact over HTTP', () => {
  let server: TestServer;
  let dir: string;
  let pdfLib: string;
  let libreOffice: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'redact-e2e-'));
    [server, pdfLib, libreOffice] = await Promise.all([
      startServer({ plugins: [...ocrPlugins, ...redactPlugins] }),
      pdfLibFixture(path.join(dir, 'statement.pdf')),
      libreOfficeFixture(path.join(dir, 'letter.pdf')),
    ]);
  }, 120_000);
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('removes every match and reports the regions', async () => {
    const key = await server.createKey('pro');
    const [first, second] = await Promise.all([
      convertAndDownload(server.url, key, pdfLib, { to: 'pdf', op: 'redact', redact: JSON.stringify(ALL_PATTERNS) }),
      convertAndDownload(server.url, key, libreOffice, {
        to: 'pdf',
        op: 'redact',
        redact: JSON.stringify(ALL_PATTERNS),
      }),
    ]);
    expect(first.job.toolReport).toEqual({ op: 'redact', detected: 15 });
    expect(second.job.toolReport?.detected).toBeGreaterThanOrEqual(7);
    for (const { outputPath } of [first, second]) {
      expect(await residue(outputPath, Object.values(SECRETS))).toEqual([]);
      expect(await extractedText(outputPath)).toContain(KEPT);
    }
  }, 120_000);

  it('no match: detected 0 and the file back byte for byte', async () => {
    const key = await server.createKey('pro');
    const { job, data } = await convertAndDownload(server.url, key, pdfLib, {
      to: 'pdf',
      op: 'redact',
      redact: '{"terms":["absent phrase"]}',
    });
    expect(job.toolReport).toEqual({ op: 'redact', detected: 0 });
    expect(data.equals(await readFile(pdfLib))).toBe(true);
  }, 60_000);

  it('a scan OCRed then redacted: the words are gone from the text layer and from the picture', async () => {
    const key = await server.createKey('pro');
    const scan = await scannedPdf(path.join(dir, 'scan.pdf'), [[`Write to ${SECRETS.email} today`, 'This line stays']]);
    const ocred = await convertAndDownload(server.url, key, scan, { to: 'pdf', op: 'ocr' }, 120_000);
    const searchable = path.join(dir, 'searchable.pdf');
    await writeFile(searchable, ocred.data);
    const { job, outputPath } = await convertAndDownload(server.url, key, searchable, {
      to: 'pdf',
      op: 'redact',
      redact: '{"patterns":["email"]}',
    });
    expect(job.toolReport).toEqual({ op: 'redact', detected: 1 });
    expect(await residue(outputPath, [SECRETS.email])).toEqual([]);
    expect(await extractedText(outputPath)).toContain('This line stays');
    // The picture itself: render the page and read it again.
    const png = path.join(dir, 'rendered');
    await runProcess('pdftoppm', ['-r', '300', '-png', '-singlefile', outputPath, png], { timeoutMs: 60_000 });
    const { stdout } = await runProcess('tesseract', [`${png}.png`, 'stdout', '-l', 'eng'], {
      timeoutMs: 60_000,
      env: { ...process.env, OMP_THREAD_LIMIT: '1' },
    });
    expect(stdout).toContain('This line stays');
    expect(stdout).toContain('Write to');
    expect(stdout.toLowerCase()).not.toMatch(/jane|example|doe@/);
  }, 240_000);

  it('refuses a PDF of 2,001 pages at submit, naming the page limit', async () => {
    const key = await server.createKey('pro');
    const data = Buffer.from(await manyPagePdf(2001));
    const { status, body } = await submitConvert(
      server.url,
      key,
      { name: 'pages.pdf', data },
      { to: 'pdf', op: 'redact', redact: '{"patterns":["email"]}' },
    );
    expect(status).toBe(400);
    expect(body.error).toBe(
      "op 'redact' takes at most 2,000 pages per job; pages.pdf has 2,001 pages: split it first (op split-pdf)",
    );
  });

  it('refuses a missing or empty spec before any credit is spent', async () => {
    const key = await server.createKey('pro');
    const specs: Array<Record<string, string>> = [
      {},
      { redact: '{}' },
      { redact: '{"patterns":["passport"]}' },
      { redact: 'email' },
    ];
    for (const fields of specs) {
      const { status, body } = await submitConvert(server.url, key, pdfLib, { to: 'pdf', op: 'redact', ...fields });
      expect(status, JSON.stringify(fields)).toBe(400);
      expect(body.error).toMatch(/redact/);
    }
  });
});
