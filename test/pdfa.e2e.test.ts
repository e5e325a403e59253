/**
 * PDF/A over HTTP: a DOCX (LibreOffice's PDF/A export) and a PDF with an unembedded font and
 * document JavaScript (Ghostscript's PDF/A path) become PDF/A-2b. Checked: XMP pdfaid:part and
 * conformance, an OutputIntent with an ICC profile, every font embedded, no encryption, no
 * JavaScript. veraPDF is not run (not packaged for Debian); these are the markers it checks first.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFRawStream, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runProcess } from '../core/engines/process.js';
import { officePlugins } from '../plugins/office/index.js';
import { pdfPlugins } from '../plugins/pdf/index.js';
import { convertAndDownload, startServer, submitConvert, type TestServer } from './helpers.js';

const run = async (command: string, ...args: string[]) =>
  (await runProcess(command, args, { timeoutMs: 30_000 })).stdout;

/** The PDF/A markers of `file` at `part` (conformance B), and its text. */
async function expectPdfa(file: string, part: number, text: string): Promise<void> {
  const xmp = await run('pdfinfo', '-meta', file);
  expect(xmp).toMatch(new RegExp(`pdfaid:part(='|>|=")${part}`));
  expect(xmp).toMatch(/pdfaid:conformance(='|>|=")B/);
  const info = await run('pdfinfo', file);
  expect(info).toMatch(/Encrypted:\s+no/);
  expect(info).toMatch(/JavaScript:\s+no/);
  const fonts = (await run('pdffonts', file))
    .split('\n')
    .slice(2)
    .filter((line) => line.trim());
  expect(fonts.length).toBeGreaterThan(0);
  // Columns: name type encoding emb sub uni object ID; "emb" is the 4th from the end.
  for (const line of fonts) expect(line.trim().split(/\s+/).at(-5), line).toBe('yes');
  const doc = await PDFDocument.load(await readFile(file), { updateMetadata: false });
  const intents = doc.catalog.lookup(PDFName.of('OutputIntents'), PDFArray);
  const intent = intents.lookup(0, PDFDict);
  expect(intent.get(PDFName.of('S'))).toEqual(PDFName.of('GTS_PDFA1'));
  expect(intent.lookup(PDFName.of('DestOutputProfile'))).toBeInstanceOf(PDFRawStream);
  expect(doc.catalog.lookup(PDFName.of('Names'))?.toString() ?? '').not.toContain('/JavaScript');
  expect(await run('pdftotext', file, '-')).toContain(text);
}

describe('PDF/A over HTTP', () => {
  let server: TestServer;
  let key: string;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pdfa-e2e-'));
    await writeFile(
      path.join(dir, 'charter.md'),
      '# Archive Charter\n\nThe octopus keeps every record for thirty years.\n',
    );
    await runProcess('pandoc', [path.join(dir, 'charter.md'), '-o', path.join(dir, 'charter.docx')], {
      timeoutMs: 30_000,
    });
    // Helvetica as pdf-lib writes it is not embedded, and the document carries JavaScript: both forbidden in PDF/A.
    const pdf = await PDFDocument.create();
    const helvetica = await pdf.embedFont(StandardFonts.Helvetica);
    pdf.addPage([595, 842]).drawText('Ledger of the octopus', { x: 50, y: 780, size: 24, font: helvetica });
    pdf.addJavaScript('greeting', 'app.alert("hello");');
    await writeFile(path.join(dir, 'ledger.pdf'), await pdf.save());
    expect(await run('pdfinfo', path.join(dir, 'ledger.pdf'))).toMatch(/JavaScript:\s+yes/);
    server = await startServer({ plugins: [...officePlugins, ...pdfPlugins] });
  }, 120_000);
  beforeEach(async () => {
    key = await server.createKey('free');
  });
  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('a DOCX becomes PDF/A-2b (LibreOffice)', async () => {
    const { outputPath } = await convertAndDownload(
      server.url,
      key,
      path.join(dir, 'charter.docx'),
      { to: 'pdf', pdfa: '2b' },
      120_000,
    );
    await expectPdfa(outputPath, 2, 'The octopus keeps every record for thirty years.');
  }, 150_000);

  it('a PDF with an unembedded font and JavaScript becomes PDF/A-2b (Ghostscript)', async () => {
    const { outputPath } = await convertAndDownload(
      server.url,
      key,
      path.join(dir, 'ledger.pdf'),
      { to: 'pdf', pdfa: '2b' },
      120_000,
    );
    await expectPdfa(outputPath, 2, 'Ledger of the octopus');
  }, 150_000);

  it.each([
    ['1b', 1],
    ['3b', 3],
  ] as const)(
    'a PDF becomes PDF/A-%s',
    async (level, part) => {
      const { outputPath } = await convertAndDownload(
        server.url,
        key,
        path.join(dir, 'ledger.pdf'),
        { to: 'pdf', pdfa: level },
        120_000,
      );
      await expectPdfa(outputPath, part, 'Ledger of the octopus');
    },
    150_000,
  );

  it('to=pdf from a PDF needs a pdfa level, and refuses an unknown one', async () => {
    const missing = await submitConvert(server.url, key, path.join(dir, 'ledger.pdf'), { to: 'pdf' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/pdfa/);
    const wrong = await submitConvert(server.url, key, path.join(dir, 'ledger.pdf'), { to: 'pdf', pdfa: '4u' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toContain('1b, 2b, 3b');
  });
});
