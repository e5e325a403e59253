/**
 * Office fidelity bench: real DOCX and PPTX files saved by Microsoft Office (their docProps/app.xml
 * records Word's page count or PowerPoint's slide count) converted to PDF through the service's warm
 * LibreOffice pool; reports the share whose PDF has that page count and the share of the document
 * XML's words found in the PDF's text, on a tuning and a held-out half (split by a hash of the name).
 *
 *   npx tsx bench/office-fidelity/run.ts <folder of .docx/.pptx files>
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { LibreOfficePool } from '../../core/engines/execution/libreoffice-pool.js';
import { runProcess } from '../../core/engines/process.js';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const run = async (cmd: string, args: string[]) => (await runProcess(cmd, args, { timeoutMs: 120_000 })).stdout;
const half = (name: string) => (createHash('sha256').update(name).digest()[0]! % 2 === 0 ? 'tuning' : 'held-out');
const wordsOf = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [];

async function saved(file: string): Promise<{ app: string; pages: number } | undefined> {
  const xml = await run('unzip', ['-p', file, 'docProps/app.xml']).catch(() => '');
  const app = /<Application>([^<]*)/.exec(xml)?.[1] ?? '';
  const pages = Number(/<(?:Pages|Slides)>(\d+)/.exec(xml)?.[1]);
  const hidden = Number(/<HiddenSlides>(\d+)/.exec(xml)?.[1] ?? 0);
  return app.startsWith('Microsoft') && pages > 0 ? { app, pages: pages - hidden } : undefined;
}

async function documentText(file: string): Promise<string> {
  const part = file.endsWith('.docx') ? ['word/document.xml'] : ['ppt/slides/slide*.xml'];
  const xml = await run('unzip', ['-p', file, ...part]).catch(() => '');
  return [...xml.matchAll(/<(?:w|a):t(?: [^>]*)?>([^<]*)</g)].map((m) => m[1]).join(' ');
}

const dir = process.argv[2]!;
const pool = new LibreOfficePool({ size: 1, log: quiet, confine: true });
await pool.warm();
const rows: Array<{ half: string; kind: string; samePages: boolean; recall: number; failed: boolean }> = [];
for (const name of (await readdir(dir)).sort()) {
  if (!/\.(docx|pptx)$/.test(name)) continue;
  const file = path.join(dir, name);
  const want = await saved(file);
  if (!want) continue;
  const kind = name.endsWith('.docx') ? 'docx' : 'pptx';
  const out = await mkdtemp(path.join(os.tmpdir(), 'fidelity-'));
  const filter = kind === 'docx' ? 'MS Word 2007 XML' : 'Impress MS PowerPoint 2007 XML';
  const convertTo = kind === 'docx' ? 'pdf:writer_pdf_Export' : 'pdf:impress_pdf_Export';
  let pdf: string | undefined;
  try {
    pdf = (await pool.convert({ input: file, convertTo, inputFilter: filter, outDir: out }, { timeoutMs: 120_000 }))
      ?.output;
  } catch {
    pdf = undefined;
  }
  if (!pdf) {
    rows.push({ half: half(name), kind, samePages: false, recall: 0, failed: true });
    continue;
  }
  const pages = Number(/Pages:\s+(\d+)/.exec(await run('pdfinfo', [pdf]))?.[1]);
  const expected = wordsOf(await documentText(file));
  const got = new Set(wordsOf(await run('pdftotext', ['-enc', 'UTF-8', pdf, '-'])));
  const recall = expected.length ? expected.filter((w) => got.has(w)).length / expected.length : 1;
  rows.push({ half: half(name), kind, samePages: pages === want.pages, recall, failed: false });
}
await pool.close();
for (const part of ['tuning', 'held-out']) {
  for (const kind of ['docx', 'pptx']) {
    const set = rows.filter((r) => r.half === part && r.kind === kind);
    if (!set.length) continue;
    const share = (n: number) => `${((100 * n) / set.length).toFixed(1)}%`;
    console.log(
      `${part} ${kind}: ${set.length} files, failed ${set.filter((r) => r.failed).length}, ` +
        `same page count ${share(set.filter((r) => r.samePages).length)}, ` +
        `word recall ${(set.reduce((s, r) => s + r.recall, 0) / set.length).toFixed(3)}`,
    );
  }
}
