/**
 * Test support for the redact op: PDFs made on the fly by three producers, each carrying the
 * same secrets and one sentence that must survive, and the residue check the issue asks for
 * (pdftotext, `qpdf --qdf --object-streams=disable`, raw bytes).
 *
 * - pdf-lib: standard 14 fonts (Helvetica, WinAnsi strings), a phrase split across two Tj
 *   operators, another inside a TJ array with kerning, plus an Info dictionary, XMP, a bookmark,
 *   a note annotation, a filled text field, and a picture away from the text.
 * - LibreOffice (HTML -> PDF): subset TrueType fonts, Identity-H glyph ids, compressed streams.
 * - ghostscript (PostScript -> PDF): Type 1 fonts (stored as CFF), the phrase split over two `show`s.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, PDFHexString, PDFName, PDFString, StandardFonts, degrees } from 'pdf-lib';
import sharp from 'sharp';
import { runProcess } from '../../../core/engines/process.js';

/** What every fixture carries, and a spec that matches all of it. */
export const SECRETS = {
  email: 'jane.doe@example.com',
  phone: '+1 (555) 123-4567',
  ssn: '123-45-6789',
  card: '4111 1111 1111 1111',
  iban: 'DE89 3704 0044 0532 0130 00',
  term: 'Project Falcon',
} as const;
export const KEPT = 'This sentence did not match and stays readable.';
export const ALL_PATTERNS = { patterns: ['email', 'phone', 'ssn', 'credit-card', 'iban'], terms: [SECRETS.term] };

/** The visible lines (the term is drawn by the producers themselves, split across operators). */
const LINES = [
  `Contact: ${SECRETS.email}`,
  `Phone: ${SECRETS.phone}`,
  `SSN: ${SECRETS.ssn}`,
  `Card: ${SECRETS.card}`,
  `IBAN: ${SECRETS.iban}`,
  KEPT,
];

const XMP = (creator: string) =>
  `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF ` +
  `xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" ` +
  `xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator>${creator}</dc:creator></rdf:Description></rdf:RDF>` +
  `</x:xmpmeta><?xpacket end="w"?>`;

/** pdf-lib, standard 14 fonts, with metadata, a bookmark, a note, a filled field and a picture. */
export async function pdfLibFixture(file: string): Promise<string> {
  const doc = await PDFDocument.create();
  // Fixed dates, and ones whose 14 digits pass Luhn: a date must never be redacted as a card number.
  doc.setCreationDate(new Date('2026-11-23T18:26:06Z'));
  doc.setModificationDate(new Date('2026-11-23T18:26:06Z'));
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  LINES.forEach((line, i) => {
    page.drawText(line, { x: 50, y: 700 - i * 30, size: 14, font });
  });
  // The term across two Tj operators, and again inside one TJ with kerning.
  const key = page.node.newFontDictionary('Fx', font.ref);
  const raw =
    `BT ${key.toString()} 14 Tf 50 480 Td (Budget of Project Fal) Tj (con in 2025) Tj ET\nBT ` +
    `${key.toString()} 14 Tf 50 450 Td [(Code name: Pro) -30 (ject F) 15 (al) -20 (con.)] TJ ET\n`;
  page.node.addContentStream(doc.context.register(doc.context.stream(raw)));
  // A picture away from every match: it must come out unchanged.
  const png = await doc.embedPng(
    await sharp({ create: { width: 40, height: 30, channels: 3, background: '#2080c0' } })
      .png()
      .toBuffer(),
  );
  page.drawImage(png, { x: 400, y: 80, width: 80, height: 60 });

  doc.setTitle(`Report for ${SECRETS.email}`);
  doc.setAuthor(`${SECRETS.term} team`);
  doc.setSubject(`Call ${SECRETS.phone}`);
  doc.setKeywords([SECRETS.ssn, 'quarterly']);
  doc.catalog.set(
    PDFName.of('Metadata'),
    doc.context.register(doc.context.stream(XMP(`${SECRETS.email} via XMP`), { Type: 'Metadata', Subtype: 'XML' })),
  );

  // A bookmark titled with the term.
  const outlines = doc.context.nextRef();
  const item = doc.context.register(
    doc.context.obj({
      Title: PDFHexString.fromText(`Chapter on ${SECRETS.term}`),
      Parent: outlines,
      Dest: [page.ref, 'Fit'],
    }),
  );
  doc.context.assign(outlines, doc.context.obj({ Type: 'Outlines', First: item, Last: item, Count: 1 }));
  doc.catalog.set(PDFName.of('Outlines'), outlines);

  // A note whose text holds the e-mail address.
  const note = doc.context.register(
    doc.context.obj({
      Type: 'Annot',
      Subtype: 'Text',
      Rect: [500, 700, 520, 720],
      Contents: PDFString.of(`Ask ${SECRETS.email}`),
      T: PDFString.of('Reviewer'),
    }),
  );
  page.node.set(PDFName.of('Annots'), doc.context.obj([note]));

  // A text field filled with the phone number (pdf-lib draws its appearance).
  const field = doc.getForm().createTextField('phone');
  field.setText(`Mobile ${SECRETS.phone}`);
  field.addToPage(page, { x: 50, y: 300, width: 300, height: 24, font });
  doc.getForm().updateFieldAppearances(font);

  await writeFile(file, await doc.save({ useObjectStreams: false }));
  return file;
}

export const STRUCTURES_KEPT = 'Kept line here';

/**
 * pdf-lib again, for the places text hides beside plain content: a form XObject drawing the
 * e-mail address, marked content whose /ActualText holds it, and a FreeText note whose contents
 * and appearance show it.
 */
export async function structuresFixture(file: string): Promise<string> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([400, 300]);
  const key = page.node.newFontDictionary('Fx', font.ref);
  const resources = { Font: { [key.asString().slice(1)]: font.ref } };
  const form = doc.context.register(
    doc.context.stream(`BT ${key} 12 Tf 10 10 Td (In a form: ${SECRETS.email}) Tj ET`, {
      Type: 'XObject',
      Subtype: 'Form',
      BBox: [0, 0, 300, 40],
      Resources: resources,
    }),
  );
  page.node.setXObject(PDFName.of('Fm1'), form);
  const raw = [
    'q 1 0 0 1 20 200 cm /Fm1 Do Q',
    `/Span <</ActualText (${SECRETS.email})>> BDC BT ${key} 12 Tf 20 150 Td (${SECRETS.email}) Tj ET EMC`,
    `BT ${key} 12 Tf 20 100 Td (${STRUCTURES_KEPT}) Tj ET`,
  ].join('\n');
  page.node.addContentStream(doc.context.register(doc.context.stream(raw)));
  const appearance = doc.context.register(
    doc.context.stream(`BT ${key} 10 Tf 2 5 Td (Note ${SECRETS.email}) Tj ET`, {
      Type: 'XObject',
      Subtype: 'Form',
      BBox: [0, 0, 200, 20],
      Resources: resources,
    }),
  );
  const note = doc.context.register(
    doc.context.obj({
      Type: 'Annot',
      Subtype: 'FreeText',
      Rect: [150, 20, 350, 40],
      Contents: PDFString.of(`Note ${SECRETS.email}`),
      DA: PDFString.of('/Helv 10 Tf 0 g'),
      AP: { N: appearance },
    }),
  );
  page.node.set(PDFName.of('Annots'), doc.context.obj([note]));
  await writeFile(file, await doc.save({ useObjectStreams: false }));
  return file;
}

/** Pages turned by 90, 180 and 270 degrees and a cropped page, each with the e-mail address between kept words. */
export async function turnedFixture(file: string): Promise<string> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const rotation of [90, 180, 270]) {
    const page = doc.addPage([400, 300]);
    page.setRotation(degrees(rotation));
    page.drawText(`Mail ${SECRETS.email} now`, { x: 20, y: 200, size: 14, font });
    page.drawText('Kept words', { x: 20, y: 170, size: 14, font });
  }
  const cropped = doc.addPage([400, 300]);
  cropped.setCropBox(50, 50, 300, 200);
  cropped.drawText(`Mail ${SECRETS.email} now`, { x: 60, y: 150, size: 14, font });
  await writeFile(file, await doc.save());
  return file;
}

/** LibreOffice: HTML converted to PDF (subset TrueType, compressed streams). */
export async function libreOfficeFixture(file: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'redact-lo-'));
  try {
    const html = path.join(dir, 'source.html');
    const body = ['Customer record', ...LINES.slice(0, 5), `Budget of <b>Project</b> <i>Falcon</i> in 2025.`, KEPT]
      .map((line) => `<p>${line}</p>`)
      .join('\n');
    await writeFile(
      html,
      `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Report for ` +
        `${SECRETS.email}</title></head><body>${body}</body></html>`,
    );
    await runProcess(
      'soffice',
      [
        `-env:UserInstallation=file://${dir}/profile`,
        '--headless',
        '--norestore',
        '--convert-to',
        'pdf:writer_web_pdf_Export',
        '--outdir',
        dir,
        html,
      ],
      {
        timeoutMs: 120_000,
        env: { ...process.env, HOME: dir },
      },
    );
    await writeFile(file, await readFile(path.join(dir, 'source.pdf')));
    return file;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** ghostscript: PostScript with Type 1 fonts, the term split over two `show` operators. */
export async function ghostscriptFixture(file: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'redact-gs-'));
  try {
    const ps = path.join(dir, 'source.ps');
    const escapePs = (text: string) => text.replace(/[\\()]/g, '\\$&');
    const shows = LINES.map((line, i) => `72 ${700 - i * 24} moveto (${escapePs(line)}) show`).join('\n');
    await writeFile(
      ps,
      `%!PS\n[ /Title (Report for ${SECRETS.email}) /Author (${SECRETS.term}) /DOCINFO pdfmark\n/Times-Roman ` +
        `findfont 14 scalefont setfont\n${shows}\n72 540 moveto (Budget of Project Fal) show (con in 2025) ` +
        `show\nshowpage\n`,
    );
    await runProcess('gs', ['-q', '-dNOPAUSE', '-dBATCH', '-dSAFER', '-sDEVICE=pdfwrite', `-sOutputFile=${file}`, ps], {
      timeoutMs: 60_000,
    });
    return file;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The text pdftotext reads, white space collapsed. */
export async function extractedText(file: string): Promise<string> {
  return (await runProcess('pdftotext', ['-enc', 'UTF-8', file, '-'], { timeoutMs: 30_000 })).stdout.replace(
    /\s+/g,
    ' ',
  );
}

/** Literal and hex strings of PDF syntax, decoded (PDFDocEncoding/Latin-1 and UTF-16BE). */
function decodedStrings(syntax: string): string[] {
  const out: string[] = [];
  for (const hex of syntax.matchAll(/<([0-9A-Fa-f\s]+)>/g)) {
    const bytes = Buffer.from(hex[1]!.replace(/\s/g, ''), 'hex');
    out.push(bytes.toString('latin1'), utf16be(bytes));
  }
  for (const literal of syntax.matchAll(/\((?:[^()\\]|\\.)*\)/gs)) {
    const text = literal[0]
      .slice(1, -1)
      .replace(/\\([nrtbf()\\]|[0-7]{1,3})/g, (_, esc: string) =>
        /^[0-7]+$/.test(esc)
          ? String.fromCharCode(parseInt(esc, 8))
          : (({ n: '\n', r: '\r', t: '\t', b: '\b', f: '\f' } as Record<string, string>)[esc] ?? esc),
      );
    out.push(text, utf16be(Buffer.from(text, 'latin1')));
  }
  return out;
}

function utf16be(bytes: Buffer): string {
  const even = bytes.subarray(0, bytes.length - (bytes.length % 2));
  return Buffer.from(even).swap16().toString('utf16le');
}

/** How a secret may be written: as is, and without its spaces and separators. */
function forms(secret: string): string[] {
  return [...new Set([secret, secret.replace(/\s+/g, ''), secret.replace(/[\s().+-]/g, '')])].map((form) =>
    form.toLowerCase(),
  );
}

/**
 * Where each secret still appears: in pdftotext's text, in the qpdf QDF rewrite (content
 * streams decompressed, object streams off; its strings decoded too), or in the raw bytes.
 */
export async function residue(file: string, secrets: readonly string[]): Promise<string[]> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'redact-check-'));
  try {
    const qdf = path.join(dir, 'qdf.pdf');
    await runProcess('qpdf', ['--qdf', '--object-streams=disable', file, qdf], { timeoutMs: 30_000 }).catch(
      (err: { reason?: string; exitCode?: number }) => {
        if (err.exitCode !== 3) throw err; // 3: warnings only
      },
    );
    const qdfSyntax = (await readFile(qdf)).toString('latin1');
    const raw = (await readFile(file)).toString('latin1');
    const text = await extractedText(file);
    const places: Record<string, string> = {
      pdftotext: [text, text.replace(/\s+/g, '')].join('\n'),
      qdf: [qdfSyntax, ...decodedStrings(qdfSyntax)].join('\n'),
      raw: [raw, ...decodedStrings(raw)].join('\n'),
    };
    const found: string[] = [];
    for (const secret of secrets) {
      for (const [where, haystack] of Object.entries(places)) {
        const lower = haystack.toLowerCase();
        if (forms(secret).some((form) => lower.includes(form))) found.push(`${secret} in ${where}`);
      }
    }
    return found;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
