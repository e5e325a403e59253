/**
 * redact with the real engine on PDFs from three producers (pdf-lib standard 14 fonts,
 * LibreOffice subset TrueType, ghostscript Type 1): zero residue in pdftotext, the QDF rewrite
 * and the raw bytes; the sentence that did not match still extractable; metadata, bookmarks,
 * notes and form fields cleaned; images away from a match kept bit for bit, an image under a
 * match blacked out there; no match = detected 0 and the input byte for byte.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFileResult } from '../../../core/contract/index.js';
import { parseOptions } from '../../../core/contract/options.js';
import { pluginConformanceSuite, runPlugin, type TestRun } from '../../../core/contract/testing/index.js';
import { runProcess } from '../../../core/engines/process.js';
import {
  ALL_PATTERNS,
  KEPT,
  SECRETS,
  STRUCTURES_KEPT,
  extractedText,
  ghostscriptFixture,
  libreOfficeFixture,
  pdfLibFixture,
  residue,
  structuresFixture,
  turnedFixture,
} from '../testing/fixtures.js';
import { redactPlugin } from './index.js';
import { standardPlugins } from '../../index.js';

const dir = await mkdtemp(path.join(os.tmpdir(), 'redact-test-'));
const file = (name: string) => ({ path: path.join(dir, name), format: 'pdf' as const });
afterAll(() => rm(dir, { recursive: true, force: true }));

const SECRET_LIST = Object.values(SECRETS);

beforeAll(async () => {
  await Promise.all([
    pdfLibFixture(file('pdflib.pdf').path),
    ghostscriptFixture(file('gs.pdf').path),
    libreOfficeFixture(file('lo.pdf').path),
    structuresFixture(file('structures.pdf').path),
    turnedFixture(file('turned.pdf').path),
  ]);
  // A picture with an e-mail address written over it.
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([400, 200]);
  const jpg = await doc.embedJpg(
    await sharp({ create: { width: 200, height: 100, channels: 3, background: '#e0e0a0' } })
      .jpeg()
      .toBuffer(),
  );
  page.drawImage(jpg, { x: 0, y: 0, width: 400, height: 200 });
  page.drawText(`Mail ${SECRETS.email} now`, { x: 20, y: 100, size: 16, font });
  const { writeFile } = await import('node:fs/promises');
  await writeFile(file('over-image.pdf').path, await doc.save());
}, 120_000);

const outputOf = (run: TestRun) => {
  if (!isFileResult(run.result)) throw new Error('expected a file');
  return run.result.path;
};

/** Every producer: nothing of any secret left anywhere, the unmatched sentence kept, the regions counted. */
const cleanly = (minimumDetected: number) => async (run: TestRun) => {
  const output = outputOf(run);
  expect(await residue(output, SECRET_LIST)).toEqual([]);
  expect(await extractedText(output)).toContain(KEPT);
  expect(run.toolReport?.detected).toBeGreaterThanOrEqual(minimumDetected);
};

pluginConformanceSuite(
  redactPlugin,
  [
    {
      name: 'pdf-lib, standard 14 fonts, metadata, bookmark, note and field',
      files: [file('pdflib.pdf')],
      options: { redact: ALL_PATTERNS },
      expectFormat: 'pdf',
      check: cleanly(15),
    },
    {
      name: 'LibreOffice, subset TrueType',
      files: [file('lo.pdf')],
      options: { redact: ALL_PATTERNS },
      expectFormat: 'pdf',
      check: cleanly(7),
    },
    {
      name: 'ghostscript, Type 1',
      files: [file('gs.pdf')],
      options: { redact: ALL_PATTERNS },
      expectFormat: 'pdf',
      check: cleanly(8),
    },
  ],
  {
    against: standardPlugins,
    wireOptions: [{ redact: '{"patterns":["email","iban"]}' }, { redact: '{"terms":["Project Falcon"]}' }],
  },
);

describe('redact', () => {
  it('the secrets really are in the fixtures before (the residue check can see them)', async () => {
    for (const name of ['pdflib.pdf', 'gs.pdf', 'lo.pdf']) {
      expect((await residue(file(name).path, SECRET_LIST)).length, name).toBeGreaterThanOrEqual(SECRET_LIST.length);
    }
  });

  it('counts every region: 7 in the page text and 8 in strings and XMP (pdf-lib fixture)', async () => {
    const run = await runPlugin(redactPlugin, [file('pdflib.pdf')], { redact: ALL_PATTERNS });
    // page: e-mail, phone, SSN, card, IBAN, the term twice (Tj pair, kerned TJ);
    // Title, Author, Subject, Keywords, XMP, bookmark, note, field value
    expect(run.toolReport).toEqual({ detected: 15 });
    const output = outputOf(run);
    const text = await extractedText(output);
    // The words around the term stay (the space next to a box may go with it).
    for (const kept of ['Budget of', 'in 2025', 'Code name:', 'Mobile', 'Contact:']) expect(text).toContain(kept);
    const { stdout: info } = await runProcess('pdfinfo', [output], { timeoutMs: 10_000 });
    expect(info).toMatch(/^Title:\s+Report for\s*$/m);
    expect(info).toMatch(/^Author:\s+team$/m);
    await rm(run.workDir, { recursive: true, force: true });
  });

  it('text in a form XObject, in /ActualText and in a FreeText note and its appearance', async () => {
    expect(await residue(file('structures.pdf').path, [SECRETS.email])).not.toEqual([]);
    const run = await runPlugin(redactPlugin, [file('structures.pdf')], { redact: { patterns: ['email'] } });
    // the form's text, the marked glyphs, their /ActualText, the note's /Contents
    expect(run.toolReport).toEqual({ detected: 4 });
    expect(await residue(outputOf(run), [SECRETS.email])).toEqual([]);
    const text = await extractedText(outputOf(run));
    for (const kept of [STRUCTURES_KEPT, 'In a form:', 'Note']) expect(text).toContain(kept);
    await rm(run.workDir, { recursive: true, force: true });
  });

  it('turned and cropped pages: the whole address goes, every word around it stays', async () => {
    const run = await runPlugin(redactPlugin, [file('turned.pdf')], { redact: { patterns: ['email'] } });
    expect(run.toolReport).toEqual({ detected: 4 });
    expect(await residue(outputOf(run), [SECRETS.email])).toEqual([]);
    const words = (await extractedText(outputOf(run))).trim().split(' ');
    expect(new Set(words)).toEqual(new Set(['Mail', 'now', 'Kept', 'words']));
    expect(words.filter((w) => w === 'Mail')).toHaveLength(4);
    expect(words.filter((w) => w === 'Kept')).toHaveLength(3);
    await rm(run.workDir, { recursive: true, force: true });
  });

  it('draws black boxes where the text was', async () => {
    const run = await runPlugin(redactPlugin, [file('gs.pdf')], { redact: { terms: [SECRETS.term] } });
    const png = path.join(run.workDir, 'page');
    await runProcess('pdftoppm', ['-r', '72', '-png', '-singlefile', outputOf(run), png], { timeoutMs: 30_000 });
    const { data, info } = await sharp(`${png}.png`).greyscale().raw().toBuffer({ resolveWithObject: true });
    const black = data.filter((v) => v < 10).length;
    // "Project Falcon" at 14 pt is about 95 x 14 pt: a box of at least 800 black pixels.
    expect(black).toBeGreaterThan(800);
    expect(info.width).toBeGreaterThan(0);
    await rm(run.workDir, { recursive: true, force: true });
  });

  it('no match: detected 0 and the input byte for byte', async () => {
    const run = await runPlugin(redactPlugin, [file('gs.pdf')], {
      redact: { patterns: [], terms: ['nowhere in this file'] },
    });
    expect(run.toolReport).toEqual({ detected: 0 });
    expect(await readFile(outputOf(run))).toEqual(await readFile(file('gs.pdf').path));
    await rm(run.workDir, { recursive: true, force: true });
  });

  it(
    'images: one away from every match keeps its bytes; one under a match is cleared there, stored ' + 'losslessly',
    async () => {
      const imagesOf = async (pdf: string, into: string) => {
        await runProcess('pdfimages', ['-all', pdf, path.join(into, 'img')], { timeoutMs: 30_000 });
        return Promise.all(
          (await readdir(into))
            .filter((n) => n.startsWith('img'))
            .sort()
            .map(async (n) => ({ name: n, bytes: await readFile(path.join(into, n)) })),
        );
      };
      const away = await runPlugin(redactPlugin, [file('pdflib.pdf')], { redact: ALL_PATTERNS });
      const before = await imagesOf(file('pdflib.pdf').path, await mkdtemp(path.join(dir, 'before-')));
      const after = await imagesOf(outputOf(away), await mkdtemp(path.join(dir, 'after-')));
      expect(after.map((i) => createHash('sha256').update(i.bytes).digest('hex'))).toEqual(
        before.map((i) => createHash('sha256').update(i.bytes).digest('hex')),
      );

      const under = await runPlugin(redactPlugin, [file('over-image.pdf')], { redact: { patterns: ['email'] } });
      expect(under.toolReport).toEqual({ detected: 1 });
      const [image] = await imagesOf(outputOf(under), await mkdtemp(path.join(dir, 'under-')));
      expect(image!.name).toMatch(/\.png$/); // Flate, not JPEG: no second lossy pass
      const { data } = await sharp(image!.bytes).greyscale().raw().toBuffer({ resolveWithObject: true });
      // The background is a flat (224, 224, 160); MuPDF clears the pixels under the box (white) inside the image
      // itself.
      expect(data.filter((v) => v > 250).length).toBeGreaterThan(500);
      expect(await residue(outputOf(under), [SECRETS.email])).toEqual([]);
      await rm(away.workDir, { recursive: true, force: true });
      await rm(under.workDir, { recursive: true, force: true });
    },
  );

  it('validates redact as the spec says', () => {
    const parse = (redact: string | undefined) =>
      parseOptions(redactPlugin.options, redact === undefined ? {} : { redact }, {
        fromStrings: true,
        operation: 'redact',
      });
    expect(parse('{"patterns":["email","phone","ssn","credit-card","iban"],"terms":["A b"]}')).toMatchObject({
      ok: true,
    });
    expect(parse('{"terms":["  Falcon  "]}')).toMatchObject({
      ok: true,
      value: { redact: { patterns: [], terms: ['Falcon'] } },
    });
    for (const bad of [
      undefined,
      '{}',
      '{"patterns":[],"terms":[]}',
      '{"patterns":["passport"]}',
      '{"patterns":"email"}',
      '{"terms":[""]}',
      '{"terms":[1]}',
      '{"colour":"red","terms":["x"]}',
      'not json',
      '{"patterns":["email","email"]}',
    ]) {
      const parsed = parse(bad);
      expect(parsed.ok, String(bad)).toBe(false);
      if (!parsed.ok) expect(parsed.error).toMatch(/redact/);
    }
  });
});
