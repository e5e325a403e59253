import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pdfStructure } from './testing/pdf-structure.js';
import { pdfMetadataOption, writePdfMetadata, xmpPacket } from './pdf-metadata.js';
import { runProcess } from './process.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pdf-metadata-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A one-page PDF as an engine would leave it: a title, a creator and a producer, no XMP. */
async function enginePdf(name: string): Promise<string> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.addPage([200, 200]).drawText('Body text', { x: 20, y: 100, size: 12 });
  doc.setTitle('Engine title');
  doc.setCreator('Chromium');
  doc.setProducer('Skia/PDF');
  doc.setCreationDate(new Date('2026-01-02T03:04:05Z'));
  const file = path.join(dir, name);
  await writeFile(file, await doc.save({ useObjectStreams: false }));
  return file;
}

describe('the metadata option', () => {
  it('takes title, author, subject and a keyword list, and nothing else', () => {
    expect(pdfMetadataOption.safeParse({ title: 'T', keywords: ['a', 'b'] }).success).toBe(true);
    expect(pdfMetadataOption.safeParse({ Title: 'T' }).success).toBe(false);
    expect(pdfMetadataOption.safeParse({ keywords: 'a, b' }).success).toBe(false);
  });
});

describe('writePdfMetadata', () => {
  it('writes the information dictionary and an XMP packet saying the same, keeping what it was not given', async () => {
    const file = await enginePdf('meta.pdf');
    await writePdfMetadata(file, {
      metadata: { author: 'Zoë <Ops> & Co', subject: 'Quarterly “figures”', keywords: ['annual report', '2026'] },
    });
    const bytes = await readFile(file);
    const facts = await pdfStructure(bytes);
    expect(facts.info).toEqual({
      title: 'Engine title',
      author: 'Zoë <Ops> & Co',
      subject: 'Quarterly “figures”',
      keywords: 'annual report, 2026',
    });
    expect(facts.xmp).toContain('<rdf:li xml:lang="x-default">Engine title</rdf:li>');
    expect(facts.xmp).toContain(
      '<dc:creator><rdf:Seq><rdf:li>Zoë &lt;Ops&gt; &amp; Co</rdf:li></rdf:Seq></dc:creator>',
    );
    expect(facts.xmp).toContain('<rdf:Bag><rdf:li>annual report</rdf:li><rdf:li>2026</rdf:li></rdf:Bag>');
    expect(facts.xmp).toContain('<xmp:CreatorTool>Chromium</xmp:CreatorTool>');
    expect(facts.xmp).toContain('<xmp:CreateDate>2026-01-02T03:04:05.000Z</xmp:CreateDate>');
    expect(facts.xmp).not.toContain('pdfuaid');
    // poppler reads the same Info, and the page survived the rewrite.
    const info = (await runProcess('pdfinfo', [file], { timeoutMs: 10_000 })).stdout;
    expect(info).toMatch(/Author:\s+Zoë <Ops> & Co/);
    expect(info).toMatch(/Producer:\s+Skia\/PDF/);
    expect((await runProcess('pdftotext', [file, '-'], { timeoutMs: 10_000 })).stdout).toContain('Body text');
    expect((await readdir(dir)).filter((name) => name.includes('partial'))).toEqual([]);
  });

  it('identifies PDF/UA-1 in XMP and asks viewers to show the title', async () => {
    const file = await enginePdf('ua.pdf');
    await writePdfMetadata(file, { pdfua: true });
    const facts = await pdfStructure(await readFile(file));
    expect(facts.xmp).toContain('<pdfuaid:part>1</pdfuaid:part>');
    expect(facts.xmp).toContain('xmlns:pdfuaid="http://www.aiim.org/pdfua/ns/id/"');
    expect(facts.displayDocTitle).toBe(true);
    expect(facts.info.title).toBe('Engine title');
  });

  it('leaves the file untouched when there is nothing to write, and fails plainly on a damaged PDF', async () => {
    const file = await enginePdf('same.pdf');
    const before = await readFile(file);
    await writePdfMetadata(file, { metadata: { keywords: [] }, pdfua: false });
    expect((await readFile(file)).equals(before)).toBe(true);
    const damaged = path.join(dir, 'damaged.pdf');
    await writeFile(damaged, 'not a pdf at all');
    await expect(writePdfMetadata(damaged, { pdfua: true })).rejects.toThrow('The PDF could not be read');
  });

  it('writes well-formed XML whatever the text holds', () => {
    const packet = xmpPacket({ title: 'a\u0001b <c>', keywords: ["it's"] });
    expect(packet).toContain('ab &lt;c&gt;');
    expect(packet).toContain('it&apos;s');
  });
});
