/**
 * Test CVs with known contents: a text PDF, a DOCX (and the DOC LibreOffice makes of it), a
 * scanned PDF (one PNG per page, no text layer) and a sparse CV, plus damaged and encrypted files.
 */
import { mkdtempSync } from 'node:fs';
import { copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';
import { ZipFile } from 'yazl';
import type { FormatId } from '../../../schema/index.js';
import { runProcess } from '../../../core/engines/process.js';

/** The lines of a complete CV; the PDF, DOCX and DOC fixtures all carry exactly this text. */
export const FULL_CV = [
  'Curriculum Vitae',
  'Jane Doe',
  'Senior Software Engineer',
  'Berlin, Germany | +49 30 1234 5678 | jane.doe@example.com',
  'linkedin.com/in/jane-doe',
  '',
  'Experience',
  'Senior Software Engineer at Acme GmbH',
  '03/2018 - 05/2021',
  'Built billing services in Node.js on Kubernetes.',
  'Software Engineer - Globex Inc.',
  '2014 - 2018',
  '',
  'Education',
  'BSc Computer Science, TU Berlin',
  '2010 - 2014',
  '',
  'Skills',
  'TypeScript, Node.js, PostgreSQL | Docker',
  '- Terraform',
];

/** What parse-cv must find in FULL_CV: jobs 2014-01..2018-01 and 2018-03..2021-05 = 48 + 39 months. */
export const FULL_CV_ROW = {
  name: 'Jane Doe',
  email: 'jane.doe@example.com',
  phone: '+49 30 1234 5678',
  title: 'Senior Software Engineer',
  employer: 'Acme GmbH',
  location: 'Berlin, Germany',
  linkedin: 'https://www.linkedin.com/in/jane-doe',
  skills: ['TypeScript', 'Node.js', 'PostgreSQL', 'Docker', 'Terraform', 'Kubernetes'],
  years_exp: 7.3,
};

/** A scanned CV: fewer lines, in a large font, so OCR reads it reliably. */
export const SCANNED_CV = [
  'John Smith',
  'Data Analyst',
  'Phone: +1 415 555 0134',
  'john.smith@example.org',
  'Austin, TX',
  '',
  'Experience',
  'Data Analyst at Initech LLC',
  '2016 - 2021',
  '',
  'Skills',
  'Python, SQL, Tableau',
];

export const SCANNED_CV_ROW = {
  name: 'John Smith',
  email: 'john.smith@example.org',
  phone: '+1 415 555 0134',
  title: 'Data Analyst',
  employer: 'Initech LLC',
  location: 'Austin, TX',
  linkedin: null,
  skills: ['Python', 'SQL', 'Tableau'],
  years_exp: 5,
};

/** Only a name-like line near the top, a free-text email-less note and no dates. */
export const SPARSE_CV = [
  'Resume',
  'Alex Morgan',
  'I enjoy working with people and solving problems.',
  'References available on request.',
];

type FixtureName =
  | 'full-pdf'
  | 'full-docx'
  | 'full-doc'
  | 'scanned-pdf'
  | 'sparse-pdf'
  | 'encrypted-pdf'
  | 'damaged-pdf'
  | 'damaged-docx';

const FORMATS: Record<FixtureName, FormatId> = {
  'full-pdf': 'pdf',
  'full-docx': 'docx',
  'full-doc': 'doc',
  'scanned-pdf': 'pdf',
  'sparse-pdf': 'pdf',
  'encrypted-pdf': 'pdf',
  'damaged-pdf': 'pdf',
  'damaged-docx': 'docx',
};

async function textPdf(lines: readonly string[]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([595, 842]);
  for (const [index, line] of lines.entries()) page.drawText(line, { x: 50, y: 790 - index * 18, size: 11, font });
  return doc.save();
}

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A page image of `lines` in large type, embedded in a PDF with no text layer. */
async function scannedPdf(lines: readonly string[]): Promise<Uint8Array> {
  const width = 1700;
  const lineHeight = 70;
  const height = 200 + lines.length * lineHeight;
  const texts = lines
    .map(
      (line, index) =>
        `<text x="100" y="${150 + index * lineHeight}" font-family="DejaVu Sans" ` +
        `font-size="44">${escapeXml(line)}</text>`,
    )
    .join('');
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" ` +
    `height="100%" fill="white"/>${texts}</svg>`;
  const png = await sharp(Buffer.from(svg)).png().toBuffer();
  const doc = await PDFDocument.create();
  const image = await doc.embedPng(png);
  // 200 dpi: the page is the image's size in points at that resolution.
  const page = doc.addPage([(width * 72) / 200, (height * 72) / 200]);
  page.drawImage(image, { x: 0, y: 0, width: page.getWidth(), height: page.getHeight() });
  return doc.save();
}

function paragraphXml(line: string): string {
  return `<w:p><w:r><w:t xml:space="preserve">${escapeXml(line)}</w:t></w:r></w:p>`;
}

/** A minimal DOCX: content types, package relationships and the document part. */
async function docx(lines: readonly string[], output: string): Promise<void> {
  const zip = new ZipFile();
  const add = (name: string, xml: string) =>
    zip.addBuffer(Buffer.from(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n${xml}`), name);
  add(
    '[Content_Types].xml',
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ' +
      'ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ' +
      'ContentType="application/xml"/><Override PartName="/word/document.xml" ' +
      'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
  );
  add(
    '_rels/.rels',
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" ' +
      'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" ' +
      'Target="word/document.xml"/></Relationships>',
  );
  add(
    'word/document.xml',
    `<w:document ` +
      `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` +
      `${lines.map(paragraphXml).join('')}</w:body></w:document>`,
  );
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  await writeFile(output, Buffer.concat(chunks));
}

/** Named fixtures in a fresh temp dir: paths are known at once, the files exist after `make()`. */
export class CvFixtures {
  readonly dir = mkdtempSync(path.join(os.tmpdir(), 'cv-fixtures-'));

  get(name: FixtureName): { path: string; format: FormatId } {
    const format = FORMATS[name];
    return { path: path.join(this.dir, `${name}.${format}`), format };
  }

  async make(): Promise<void> {
    await writeFile(this.get('full-pdf').path, await textPdf(FULL_CV));
    await docx(FULL_CV, this.get('full-docx').path);
    await writeFile(this.get('scanned-pdf').path, await scannedPdf(SCANNED_CV));
    await writeFile(this.get('sparse-pdf').path, await textPdf(SPARSE_CV));
    await runProcess(
      'qpdf',
      [
        '--encrypt',
        'user-secret',
        'owner-secret',
        '256',
        '--',
        this.get('full-pdf').path,
        this.get('encrypted-pdf').path,
      ],
      {
        timeoutMs: 10_000,
      },
    );
    await writeFile(this.get('damaged-pdf').path, '%PDF-1.7\nthis is not really a PDF\n');
    await writeFile(this.get('damaged-docx').path, 'PK\u0003\u0004 truncated zip');
    await this.legacyDoc();
  }

  cleanup(): Promise<void> {
    return rm(this.dir, { recursive: true, force: true });
  }

  /** LibreOffice writes the DOCX fixture out as Word 97-2003. */
  private async legacyDoc(): Promise<void> {
    const scratch = path.join(this.dir, 'lo');
    await mkdir(scratch);
    const source = path.join(scratch, 'cv.docx');
    await copyFile(this.get('full-docx').path, source);
    const profile = pathToFileURL(path.join(scratch, 'profile')).href;
    await runProcess(
      'soffice',
      [`-env:UserInstallation=${profile}`, '--headless', '--convert-to', 'doc:MS Word 97', '--outdir', scratch, source],
      {
        timeoutMs: 60_000,
        env: { ...process.env, HOME: scratch },
      },
    );
    await copyFile(path.join(scratch, 'cv.doc'), this.get('full-doc').path);
  }
}
