/**
 * remove-watermark: every kind of watermark removed from the text, the uncompressed content and
 * the raw bytes, with links, form fields, other annotations, layers and body text kept; nothing
 * found leaves the file byte for byte.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFileResult } from '../../../core/contract/index.js';
import { pluginConformanceSuite, type TestRun } from '../../../core/contract/testing/index.js';
import { runProcess } from '../../../core/engines/process.js';
import { cutRanges, parseContent } from '../shared/content-stream.js';
import {
  KEPT_FIELD,
  KEPT_LINK,
  KEPT_TEXT,
  WATERMARK_ELEMENTS,
  WATERMARK_MARKERS,
  pdfText,
  plainPdf,
  qdfText,
  rawText,
  structure,
  watermarkedPdf,
} from '../testing/watermark.js';
import { removeWatermarkPlugin } from './index.js';
import { standardPlugins } from '../../index.js';

const dir = await mkdtemp(path.join(os.tmpdir(), 'watermark-test-'));
const watermarked = { path: path.join(dir, 'watermarked.pdf'), format: 'pdf' as const };
const plain = { path: path.join(dir, 'plain.pdf'), format: 'pdf' as const };
const restricted = { path: path.join(dir, 'restricted.pdf'), format: 'pdf' as const };
beforeAll(async () => {
  await Promise.all([watermarkedPdf(watermarked.path), plainPdf(plain.path)]);
  // Owner restrictions only: opens without a password, but pdf-lib cannot read it as it is.
  await runProcess(
    'qpdf',
    ['--encrypt', '', 'owner secret', '256', '--print=none', '--', watermarked.path, restricted.path],
    { timeoutMs: 15_000 },
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const outputOf = (run: TestRun) => {
  if (!isFileResult(run.result)) throw new Error('expected a file');
  return run.result.path;
};

describe('the fixture', () => {
  it('holds every watermark in its text and raw bytes before the op', async () => {
    const raw = await rawText(watermarked.path);
    for (const marker of WATERMARK_MARKERS) expect(raw).toContain(marker);
    const text = await pdfText(watermarked.path);
    for (const marker of ['WMARTIFACT', 'WMLAYER', 'WMXOBJECT', 'WMPIECEINFO', 'WMINFORM'])
      expect(text).toContain(marker);
  });
});

pluginConformanceSuite(
  removeWatermarkPlugin,
  [
    {
      name: 'annotation, stamp, artifact, layer and XObject watermarks are removed; the rest stays',
      files: [watermarked],
      expectFormat: 'pdf',
      async check(run) {
        const output = outputOf(run);
        expect(run.toolReport).toEqual({ detected: WATERMARK_ELEMENTS });
        const [text, qdf, raw] = await Promise.all([pdfText(output), qdfText(output, run.workDir), rawText(output)]);
        for (const marker of WATERMARK_MARKERS) {
          expect(text).not.toContain(marker);
          expect(qdf).not.toContain(marker);
          expect(raw).not.toContain(marker);
        }
        for (const kept of KEPT_TEXT) expect(text).toContain(kept);
        expect(qdf).toContain('APPROVEDSTAMP');
        const after = await structure(output);
        expect(after.annotations).toEqual(['/Link', '/Stamp/Approved', '/Widget']);
        expect(after.links).toEqual([KEPT_LINK]);
        expect(after.fields).toEqual([KEPT_FIELD]);
        expect(after.layers).toEqual(['Notes']);
        const { stdout } = await runProcess('qpdf', ['--check', output], { timeoutMs: 15_000 });
        expect(stdout).toMatch(/No syntax or stream encoding errors found/);
      },
    },
    {
      name: 'a PDF with owner restrictions only is decrypted and cleaned',
      files: [restricted],
      expectFormat: 'pdf',
      async check(run) {
        expect(run.toolReport).toEqual({ detected: WATERMARK_ELEMENTS });
        const text = await pdfText(outputOf(run));
        for (const marker of WATERMARK_MARKERS) expect(text).not.toContain(marker);
        for (const kept of KEPT_TEXT) expect(text).toContain(kept);
      },
    },
    {
      name: 'no watermark: detected 0 and the file unchanged',
      files: [plain],
      expectFormat: 'pdf',
      async check(run) {
        expect(run.toolReport).toEqual({ detected: 0 });
        expect((await readFile(outputOf(run))).equals(await readFile(plain.path))).toBe(true);
      },
    },
  ],
  { against: standardPlugins },
);

describe('content-stream tokenizer', () => {
  it('skips strings, dictionaries and inline images when finding operators', () => {
    const content = Buffer.from(
      'BT (a \\) EMC ( nested ) Tj) Tj ET /Artifact <</Subtype /Watermark /A [1 (x)]>> BDC BI /W 1 /H 1 ID ' +
        '\x00EMC\xff EI EMC 1 0 0 rg',
    );
    const ops = parseContent(content);
    expect(ops.map((op) => op.operator)).toEqual(['BT', 'Tj', 'ET', 'BDC', 'BI', 'EI', 'EMC', 'rg']);
    expect(ops[3]!.operands).toEqual([
      '/Artifact',
      { '/Subtype': '/Watermark', '/A': [1, { string: Uint8Array.from([0x78]) }] },
    ]);
    const bdc = ops[3]!;
    const emc = ops[6]!;
    expect(Buffer.from(cutRanges(content, [{ start: bdc.start, end: emc.end }])).toString('latin1')).toBe(
      'BT (a \\) EMC ( nested ) Tj) Tj ET \n 1 0 0 rg',
    );
  });
});
