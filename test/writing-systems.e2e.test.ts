/**
 * Every writing system renders: one line in each script (Latin with its diacritics through Tibetan, Chinese,
 * Japanese, Korean and emoji) as a DOCX and an ODT (LibreOffice), an HTML page and a Markdown file (Chromium),
 * converted to PDF over HTTP by engines in their jails. Checked on the PDF: its text (poppler, which reads the
 * ActualText LibreOffice writes for reordered Indic vowels) holds every character; no character is drawn with
 * glyph 0 (.notdef) or with a glyph that also stands for other characters (a box); and each Chinese, Japanese or
 * Korean line is drawn with the shapes of its language's Noto CJK face (Markdown's language told by its script)
 * (rendered and compared with each face's own rendering: the same code point is drawn differently in Simplified
 * and Traditional Chinese). PDF/A outputs of the DOCX and ODT embed every font. FONTS_DIR adds an operator's font.
 * The scripts share one document per format, so the whole test costs six conversions and two for FONTS_DIR.
 */
import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runProcess } from '../core/engines/process.js';
import { officePlugins } from '../plugins/office/index.js';
import { webPlugins } from '../plugins/web/index.js';
import { ROOT, convertAndDownload, startServer, type TestServer } from './helpers.js';
import {
  SCRIPT_SAMPLES,
  type ScriptSample,
  scriptsDocx,
  scriptsHtml,
  scriptsMarkdown,
  scriptsOdt,
  significantCharacters,
} from './testing/writing-systems.js';

const CJK_COLLECTIONS = ['Sans', 'Serif'].map((style) => `/usr/share/fonts/opentype/noto/Noto${style}CJK-Regular.ttc`);

interface GlyphReport {
  /** Glyph-0 (.notdef) draws in the whole PDF. */
  notdef: number;
  lines: Array<{
    script: string;
    notdef: string[];
    boxes: string[];
    fonts: string[];
    /** Distinct glyphs per distinct character of the line (about 1; a line of boxes, near 0). */
    glyphShare: number;
    faces?: Record<string, number>;
  }>;
}

/** How the PDF drew each sample (test/testing/pdf-glyphs.py, with Debian's PyMuPDF). */
async function glyphReport(pdf: string, samples: readonly ScriptSample[], dir: string): Promise<GlyphReport> {
  const samplesFile = path.join(dir, 'samples.json');
  await writeFile(samplesFile, JSON.stringify(samples));
  const { stdout } = await runProcess(
    '/usr/bin/python3',
    [path.join(ROOT, 'test/testing/pdf-glyphs.py'), pdf, samplesFile, CJK_COLLECTIONS.join(',')],
    { timeoutMs: 120_000 },
  );
  return JSON.parse(stdout) as GlyphReport;
}

const pdfText = async (pdf: string) =>
  (await runProcess('pdftotext', ['-enc', 'UTF-8', pdf, '-'], { timeoutMs: 30_000 })).stdout.normalize('NFC');

/** Every character of every sample is in the PDF's text, and drawn with a real glyph of its own. */
async function expectEveryScript(pdf: string, dir: string, options: { languageFaces: boolean }): Promise<void> {
  const text = await pdfText(pdf);
  for (const sample of SCRIPT_SAMPLES) {
    const missing = significantCharacters(sample.text.normalize('NFC')).filter((char) => !text.includes(char));
    expect(missing, `${sample.script}: characters missing from the PDF's text`).toEqual([]);
  }
  const report = await glyphReport(pdf, SCRIPT_SAMPLES, dir);
  expect(report.notdef, '.notdef glyphs drawn').toBe(0);
  SCRIPT_SAMPLES.forEach((sample, index) => {
    const line = report.lines[index]!;
    const fonts = `fonts ${line.fonts.join(', ')}`;
    expect(line.notdef, `${sample.script}: drawn as .notdef (${fonts})`).toEqual([]);
    expect(line.boxes, `${sample.script}: drawn as boxes (${fonts})`).toEqual([]);
    // Measured: 0.83 to 1.6 when every script has its font; 0 to 0.74 for lines drawn in boxes.
    expect(line.glyphShare, `${sample.script}: one glyph per character (${fonts})`).toBeGreaterThanOrEqual(0.8);
    if (options.languageFaces && sample.cjkFace) {
      const faces = line.faces!;
      // Faces that share a shape score alike (Japanese and Korean share many): the language's face must be among the
      // closest, and closer than the other Chinese face.
      const best = Math.max(...Object.values(faces));
      expect(
        faces[sample.cjkFace],
        `${sample.script}: drawn in its language's shapes (${JSON.stringify(faces)})`,
      ).toBeGreaterThanOrEqual(best - 0.01);
      const rival = { sc: 'tc', tc: 'sc', jp: 'sc', kr: 'sc' }[sample.cjkFace];
      expect(faces[sample.cjkFace]!, `${sample.script}: not the ${rival} shapes`).toBeGreaterThan(faces[rival]! + 0.1);
    }
  });
}

/** pdffonts: every font of the PDF is embedded; their names. */
async function embeddedFonts(pdf: string): Promise<string[]> {
  const lines = (await runProcess('pdffonts', [pdf], { timeoutMs: 30_000 })).stdout
    .split('\n')
    .slice(2)
    .filter((line) => line.trim());
  // Columns: name type encoding emb sub uni object ID; "emb" is the 4th from the end.
  for (const line of lines) expect(line.trim().split(/\s+/).at(-5), `not embedded: ${line}`).toBe('yes');
  return lines.map((line) => line.split(/\s+/)[0]!);
}

describe('every writing system renders, over HTTP', () => {
  let server: TestServer;
  let key: string;
  let dir: string;
  const files: Record<string, string> = {};

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'scripts-e2e-'));
    const write = async (name: string, data: Buffer | string) => {
      files[name] = path.join(dir, name);
      await writeFile(files[name], data);
    };
    await write('scripts.docx', scriptsDocx(SCRIPT_SAMPLES));
    await write('scripts.odt', scriptsOdt(SCRIPT_SAMPLES));
    await write('scripts.html', scriptsHtml(SCRIPT_SAMPLES));
    await write('scripts.md', scriptsMarkdown(SCRIPT_SAMPLES));
    server = await startServer({ plugins: [...officePlugins, ...webPlugins] });
  }, 60_000);
  beforeEach(async () => {
    key = await server.createKey('pro');
  });
  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    ['DOCX', 'scripts.docx', true],
    ['ODT', 'scripts.odt', true],
    ['HTML', 'scripts.html', true],
    // Markdown cannot say a paragraph's language: md-to-pdf marks each block with the one its script shows.
    ['Markdown', 'scripts.md', true],
  ] as const)(
    'a %s file becomes a PDF drawing every script',
    async (_format, name, languageFaces) => {
      const { outputPath } = await convertAndDownload(server.url, key, files[name]!, { to: 'pdf' }, 180_000);
      await expectEveryScript(outputPath, dir, { languageFaces });
    },
    240_000,
  );

  it.each([
    ['DOCX', 'scripts.docx'],
    ['ODT', 'scripts.odt'],
  ] as const)(
    'a %s file becomes a PDF/A-2b that embeds the fonts of every script',
    async (_format, name) => {
      const { outputPath } = await convertAndDownload(
        server.url,
        key,
        files[name]!,
        { to: 'pdf', pdfa: '2b' },
        180_000,
      );
      const fonts = await embeddedFonts(outputPath);
      for (const family of ['Devanagari', 'Thai', 'Ethiopic', 'Tibetan', 'CJK', 'ColorEmoji'])
        expect(
          fonts.some((font) => font.includes(family)),
          `${family} in ${fonts.join(', ')}`,
        ).toBe(true);
      await expectEveryScript(outputPath, dir, { languageFaces: true });
    },
    240_000,
  );
});

/** A font no Debian package here installs: Visual Studio Code's icon font, inside playwright-core's trace viewer. */
async function operatorFont(): Promise<string> {
  const root = path.join(ROOT, 'node_modules/playwright-core/lib/vite');
  for (const entry of await readdir(root, { recursive: true }))
    if (/codicon[^/]*\.ttf$/.test(entry)) return path.join(root, entry);
  throw new Error('no codicon font under playwright-core');
}

/** Two icons of the font (Private Use Area code points only it has), in a DOCX and an HTML page set in it. */
const ICONS = '\uea60\uea61';

describe('FONTS_DIR adds an operator font, over HTTP', () => {
  let server: TestServer;
  let key: string;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'fonts-dir-e2e-'));
    // In a subfolder: fontconfig scans the whole tree.
    await mkdir(path.join(dir, 'fonts/brand'), { recursive: true });
    await copyFile(await operatorFont(), path.join(dir, 'fonts/brand/codicon.ttf'));
    server = await startServer({
      plugins: [...officePlugins, ...webPlugins],
      env: { FONTS_DIR: path.join(dir, 'fonts') },
    });
  }, 60_000);
  beforeEach(async () => {
    key = await server.createKey('pro');
  });
  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const iconSample: ScriptSample = { script: 'Operator icons', lang: 'en-US', text: `Icons ${ICONS}` };

  it('Chromium draws an HTML page with the operator font', async () => {
    const html =
      '<!doctype html><html lang="en"><head><meta charset="utf-8"></head>' +
      `<body><p style="font-family: codicon, sans-serif">Icons ${ICONS}</p></body></html>`;
    const { outputPath } = await convertAndDownload(
      server.url,
      key,
      { name: 'icons.html', data: html },
      { to: 'pdf' },
      180_000,
    );
    expect(await embeddedFonts(outputPath)).toEqual(expect.arrayContaining([expect.stringMatching(/codicon/)]));
    const { notdef, lines } = await glyphReport(outputPath, [iconSample], dir);
    const [line] = lines;
    expect(notdef).toBe(0);
    expect(line!.fonts).toContain('codicon');
    expect(line!.notdef).toEqual([]);
    expect(line!.boxes).toEqual([]);
  }, 240_000);

  it('LibreOffice draws a DOCX with the operator font', async () => {
    const docx = scriptsDocx([iconSample]);
    // The sample's runs in the operator's font (Word names a font per run).
    const { unzipSync, zipSync, strToU8, strFromU8 } = await import('fflate');
    const parts = unzipSync(docx);
    parts['word/document.xml'] = strToU8(
      strFromU8(parts['word/document.xml']!).replaceAll(
        '<w:rPr><w:lang',
        '<w:rPr><w:rFonts w:ascii="codicon" w:hAnsi="codicon" w:cs="codicon"/><w:lang',
      ),
    );
    const { outputPath } = await convertAndDownload(
      server.url,
      key,
      { name: 'icons.docx', data: Buffer.from(zipSync(parts)) },
      { to: 'pdf' },
      180_000,
    );
    expect(await embeddedFonts(outputPath)).toEqual(expect.arrayContaining([expect.stringMatching(/codicon/)]));
    const { notdef, lines } = await glyphReport(outputPath, [iconSample], dir);
    const [line] = lines;
    expect(notdef).toBe(0);
    expect(line!.fonts).toContain('codicon');
    expect(line!.notdef).toEqual([]);
    expect(line!.boxes).toEqual([]);
  }, 240_000);
});
