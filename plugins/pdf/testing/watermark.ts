/**
 * Test support for remove-watermark: a four-page PDF made with pdf-lib holding every kind of
 * watermark the op removes (each printing a marker word starting "WM"), beside what must stay
 * (body text, a non-watermark artifact and layer, a link, a form field, an "Approved" stamp), and
 * checks of a file's text (pdftotext), its uncompressed content (qpdf --qdf) and its raw bytes
 * (every stream inflated, reachable or not).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { inflateSync } from 'node:zlib';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFString, StandardFonts, type PDFPage, type PDFRef } from 'pdf-lib';
import { runProcess } from '../../../core/engines/process.js';

/** Words printed by the watermarks: none may survive. */
export const WATERMARK_MARKERS = [
  'WMANNOTATION',
  'WMSTAMP',
  'WMARTIFACT',
  'WMACROBAT',
  'WMPROPLIST',
  'WMLAYER',
  'WMINTENT',
  'WMXOBJECT',
  'WMPIECEINFO',
  'WMINFORM',
];
/** Elements the op must count in the watermarked fixture. */
export const WATERMARK_ELEMENTS = 10;
/** Body text that must stay extractable. */
export const KEPT_TEXT = [
  'Body one stays',
  'Body two stays',
  'Header stays',
  'Logo stays',
  'Notes layer stays',
  'Form body stays',
];
export const KEPT_LINK = 'https://example.com/kept-link';
export const KEPT_FIELD = 'customer.name';

const text = (words: string, x: number, y: number, size = 14) => `BT /F1 ${size} Tf ${x} ${y} Td (${words}) Tj ET`;

export async function watermarkedPdf(file: string): Promise<void> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const ctx = doc.context;
  const fonts = () => ctx.obj({ F1: font.ref });
  const form = (content: string, extra: Record<string, unknown> = {}): PDFRef =>
    ctx.register(
      ctx.stream(content, {
        Type: 'XObject',
        Subtype: 'Form',
        BBox: [0, 0, 612, 792],
        Resources: { Font: fonts() },
        ...extra,
      }),
    );
  const page = (content: string, resources: Record<string, unknown> = {}): PDFPage => {
    const p = doc.addPage([612, 792]);
    p.node.set(PDFName.of('Contents'), ctx.register(ctx.stream(content)));
    p.node.set(PDFName.of('Resources'), ctx.obj({ Font: fonts(), ...resources }));
    return p;
  };

  // Page 1: annotations. A /Watermark annotation and a stamp named Watermark go; a link, an
  // "Approved" stamp and a text field stay.
  const one = page(text('Body one stays', 40, 700));
  const annotation = (dict: Record<string, unknown>, words: string) =>
    ctx.register(
      ctx.obj({ Type: 'Annot', Rect: [50, 300, 500, 400], F: 4, AP: { N: form(text(words, 60, 350, 30)) }, ...dict }),
    );
  const link = ctx.register(
    ctx.obj({
      Type: 'Annot',
      Subtype: 'Link',
      Rect: [40, 690, 200, 720],
      Border: [0, 0, 0],
      A: { S: 'URI', URI: PDFString.of(KEPT_LINK) },
    }),
  );
  one.node.set(
    PDFName.of('Annots'),
    ctx.obj([
      link,
      annotation({ Subtype: 'Watermark' }, 'WMANNOTATION'),
      annotation({ Subtype: 'Stamp', Name: 'Watermark' }, 'WMSTAMP'),
      annotation({ Subtype: 'Stamp', Name: 'Approved', Rect: [50, 100, 300, 150] }, 'APPROVEDSTAMP'),
    ]),
  );
  const field = doc.getForm().createTextField(KEPT_FIELD);
  field.setText('Ada Lovelace');
  field.addToPage(one, { x: 40, y: 600, width: 200, height: 24 });

  // Page 2: artifacts marked as watermarks, inline and through a property list; a header artifact stays.
  page(
    [
      text('Body two stays', 40, 700),
      `/Artifact <</Type /Pagination /Subtype /Header>> BDC ${text('Header stays', 40, 760)} EMC`,
      `/Artifact <</Subtype /Watermark /Type /Pagination>> BDC q 0.8 g ${text('WMARTIFACT', 100, 400, 48)} Q EMC`,
      `/Artifact /P0 BDC ${text('WMPROPLIST', 100, 300, 48)} EMC`,
      // As Acrobat writes them: a form drawn inside the watermark section (its resource entry
      // goes with it); the logo is drawn there and outside it, so it stays.
      '/Artifact <</Subtype /Watermark /Type /Pagination>> BDC q /Fm0 Do /Logo Do Q EMC',
      'q /Logo Do Q',
    ].join('\n'),
    {
      Properties: { P0: { Type: 'Pagination', Subtype: 'Watermark' } },
      XObject: { Fm0: form(text('WMACROBAT', 100, 200, 48)), Logo: form(text('Logo stays', 400, 740, 10)) },
    },
  );

  // Page 3: layers. "Watermark" by name and "Draft" by intent go with their content and the
  // XObject tagged with them; "Notes" stays.
  const ocg = (name: string, extra: Record<string, unknown> = {}) =>
    ctx.register(ctx.obj({ Type: 'OCG', Name: PDFString.of(name), ...extra }));
  const watermarkLayer = ocg('Watermark');
  const notesLayer = ocg('Notes');
  const draftLayer = ocg('Draft', { Intent: ['View', 'Watermark'] });
  page(
    [
      `/OC /MC0 BDC ${text('WMLAYER', 100, 400, 48)} EMC`,
      `/OC /MC1 BDC ${text('Notes layer stays', 40, 700)} EMC`,
      `/OC /MC2 BDC ${text('WMINTENT', 100, 300, 48)} EMC`,
      'q /Fx0 Do Q',
    ].join('\n'),
    {
      Properties: { MC0: watermarkLayer, MC1: notesLayer, MC2: draftLayer },
      XObject: { Fx0: form(text('WMXOBJECT', 100, 200, 48), { OC: watermarkLayer }) },
    },
  );
  const all = [watermarkLayer, notesLayer, draftLayer];
  doc.catalog.set(PDFName.of('OCProperties'), ctx.obj({ OCGs: all, D: { Order: all, ON: all } }));

  // Page 4: form XObjects: Acrobat's watermark (PieceInfo) goes; an ordinary form keeps its body
  // text and loses the watermark section inside it.
  page('q /Fx1 Do Q\nq /Fx2 Do Q', {
    XObject: {
      Fx1: form(text('WMPIECEINFO', 100, 400, 48), { PieceInfo: { ADBE_CompoundType: { Private: 'Watermark' } } }),
      Fx2: form(
        `${text('Form body stays', 40, 700)}\n/Artifact <</Subtype /Watermark>> BDC ` +
          `${text('WMINFORM', 100, 300, 48)} EMC`,
      ),
    },
  });
  await writeFile(file, await doc.save({ useObjectStreams: false }));
}

/** A plain two-page PDF with a link and no watermark. */
export async function plainPdf(file: string): Promise<void> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const words of ['Plain page one', 'Plain page two'])
    doc.addPage([300, 400]).drawText(words, { x: 20, y: 200, size: 18, font });
  await writeFile(file, await doc.save());
}

export async function pdfText(file: string): Promise<string> {
  return (await runProcess('pdftotext', ['-enc', 'UTF-8', file, '-'], { timeoutMs: 15_000 })).stdout;
}

/** The file rewritten by qpdf with every stream uncompressed (QDF). */
export async function qdfText(file: string, dir: string): Promise<string> {
  const out = `${dir}/qdf-${Date.now()}-${Math.random().toString(36).slice(2)}.pdf`;
  await runProcess('qpdf', ['--qdf', '--object-streams=disable', file, out], { timeoutMs: 15_000 });
  return (await readFile(out)).toString('latin1');
}

/** The raw bytes plus every Flate stream in them inflated (whether anything refers to it or not). */
export async function rawText(file: string): Promise<string> {
  const bytes = await readFile(file);
  const raw = bytes.toString('latin1');
  const inflated: string[] = [];
  for (const match of raw.matchAll(/stream\r?\n/g)) {
    const start = match.index + match[0].length;
    const end = raw.indexOf('endstream', start);
    if (end < 0) continue;
    try {
      inflated.push(inflateSync(bytes.subarray(start, end), { finishFlush: 2 }).toString('latin1'));
    } catch {
      // not deflated
    }
  }
  return [raw, ...inflated].join('\n');
}

/** /Annots subtypes of every page, and the names of the remaining layers, through pdf-lib. */
export async function structure(
  file: string,
): Promise<{ annotations: string[]; layers: string[]; links: string[]; fields: string[] }> {
  const doc = await PDFDocument.load(await readFile(file));
  const annotations: string[] = [];
  const links: string[] = [];
  for (const p of doc.getPages()) {
    for (const item of p.node.lookupMaybe(PDFName.of('Annots'), PDFArray)?.asArray() ?? []) {
      const dict = doc.context.lookup(item) as PDFDict;
      const subtype = String(dict.get(PDFName.of('Subtype')));
      const name = dict.get(PDFName.of('Name'));
      annotations.push(name ? `${subtype}${String(name)}` : subtype);
      const uri = dict.lookupMaybe(PDFName.of('A'), PDFDict)?.get(PDFName.of('URI'));
      if (uri instanceof PDFString) links.push(uri.decodeText());
    }
  }
  const properties = doc.catalog.lookupMaybe(PDFName.of('OCProperties'), PDFDict);
  const groups = properties?.lookupMaybe(PDFName.of('OCGs'), PDFArray)?.asArray() ?? [];
  const layers = groups.map((g) =>
    ((doc.context.lookup(g) as PDFDict).get(PDFName.of('Name')) as PDFString).decodeText(),
  );
  return {
    annotations,
    layers,
    links,
    fields: doc
      .getForm()
      .getFields()
      .map((f) => f.getName()),
  };
}
