/**
 * Test support: real PDFs that name a Chinese, Japanese or Korean CIDFont without embedding it
 * (test/fixtures/pdf-cjk/README.md), and the check that a rewritten copy still says and draws every character: its
 * text holds each one, and each one is drawn with the glyph the substitute font (ghostscript.ts:
 * CIDFONT_SUBSTITUTES) gives that character, never glyph 0 (.notdef) and never the CID taken for a glyph number.
 */
import path from 'node:path';
import { expect } from 'vitest';
import { CIDFONT_SUBSTITUTES } from '../ghostscript.js';
import { runProcess } from '../process.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');
const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'pdf-cjk');

export interface CjkPdf {
  name: string;
  path: string;
  /** What the PDF says, line by line (pdftotext of the original). */
  text: string[];
}

const fixture = (name: string, ...text: string[]): CjkPdf => ({ name, path: path.join(FIXTURES, name), text });

export const CJK_PDFS: readonly CjkPdf[] = [
  // dvipdfmx (TeX): Ryumin-Light, Adobe-Japan1, Identity-H; Latin in an embedded CMR10.
  fixture('ryumin-identity-h.pdf', 'ABC あいうえお 123'),
  // MS-PGothic, a CIDFontType2, Identity-H: kana and full-width Latin.
  fixture('ms-pgothic-identity-h.pdf', 'あAbstract012'),
  // MS-Gothic, Shift-JIS (90ms-RKSJ-H).
  fixture('ms-gothic-sjis.pdf', 'あいうえお'),
  // ReportLab's CID fonts: Simplified Chinese, Korean and Japanese through Unicode CMaps.
  fixture(
    'reportlab-cid.pdf',
    '这是一个测试：简体中文的文本。',
    '이것은 한국어 시험입니다.',
    '한글 고딕체 문장입니다.',
    'これは日本語のテストです。漢字も。',
    'ゴシック体の日本語。',
  ),
];

/** Fonts the fixtures embed themselves (not substituted): dvipdfmx's Computer Modern. */
const EMBEDDED_IN_FIXTURES = /CMR10/;

interface GlyphIds {
  chars: Array<[char: string, glyph: number, font: string]>;
  fonts: Record<string, Record<string, number>>;
}

/** Every character of `pdf.text` is in `output`'s text and drawn with its own glyph in a substitute font. */
export async function expectCjkKept(output: string, pdf: CjkPdf): Promise<void> {
  const { stdout: text } = await runProcess('pdftotext', ['-enc', 'UTF-8', output, '-'], { timeoutMs: 30_000 });
  const flat = text.replace(/\s+/g, '');
  for (const line of pdf.text) {
    const missing = [...line.replace(/\s+/g, '')].filter((char) => !flat.includes(char));
    expect(missing, `${pdf.name}: characters missing from the text of the output`).toEqual([]);
  }
  const substitutes = Object.values(CIDFONT_SUBSTITUTES);
  const { stdout } = await runProcess(
    '/usr/bin/python3',
    [path.join(ROOT, 'test', 'testing', 'pdf-glyph-ids.py'), output, substitutes.join(',')],
    { timeoutMs: 60_000 },
  );
  const report = JSON.parse(stdout) as GlyphIds;
  const drawn = report.chars.filter(([char, , font]) => char.trim() && !EMBEDDED_IN_FIXTURES.test(font));
  expect(drawn.length, `${pdf.name}: characters drawn`).toBeGreaterThanOrEqual(5);
  const wrong = drawn
    .filter(([char, glyph]) => glyph === 0 || !substitutes.some((file) => report.fonts[file]![char] === glyph))
    .map(([char, glyph, font]) => `${char} as glyph ${glyph} of ${font}`);
  expect(wrong, `${pdf.name}: characters not drawn with their glyph`).toEqual([]);
}
