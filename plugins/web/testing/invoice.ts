/** A one-page HTML invoice with a local image, a stylesheet and a web font: the e2e tests' and the bench's document. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import yazl from 'yazl';

const WEB_FONT = path.resolve(
  import.meta.dirname,
  '../../../node_modules/pdfjs-dist/standard_fonts/LiberationSans-Bold.ttf',
);

export const INVOICE_HTML =
  `<!doctype html><html><head><meta charset="utf-8"><title>Invoice 2026-0042</title>` +
  `<link rel="stylesheet" href="style.css"></head>
<body><img id="logo" src="images/logo.png" width="120" height="40"><h1>INVOICE 2026-0042</h1>
<table><tr><th>Item</th><th>Amount</th></tr><tr><td>Octopus grooming</td><td>1,250.00 EUR</td></tr></table>
<p class="total">Total due: 1,250.00 EUR</p></body></html>`;
export const INVOICE_CSS =
  `@font-face { font-family: InvoiceFace; src: url(fonts/face.ttf) format("truetype"); }
h1, .total { font-family: InvoiceFace, serif; } table { border-collapse: collapse; } td, th { border: 1px solid ` +
  `#999; padding: 4px; }`;

/** The invoice's files by path: index.html, style.css, images/logo.png, fonts/face.ttf. */
export async function invoiceFiles(): Promise<Record<string, Buffer>> {
  const logo = await sharp({ create: { width: 120, height: 40, channels: 3, background: { r: 200, g: 30, b: 30 } } })
    .png()
    .toBuffer();
  return {
    'index.html': Buffer.from(INVOICE_HTML),
    'style.css': Buffer.from(INVOICE_CSS),
    'images/logo.png': logo,
    'fonts/face.ttf': await readFile(WEB_FONT),
  };
}

export async function zipOf(files: Record<string, Buffer | string>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, data] of Object.entries(files)) zip.addBuffer(Buffer.from(data), name);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function invoiceZip(): Promise<Buffer> {
  return zipOf(await invoiceFiles());
}
