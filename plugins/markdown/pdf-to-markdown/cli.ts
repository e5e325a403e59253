/**
 * npm run --silent pdf-to-markdown -- <file.pdf> [--keep-running] [--no-page-breaks] [--lang eng+fra] [--json]
 * Prints the Markdown, or with --json the row object {pages, markdown, stats}. --lang: the
 * languages of scanned pages, as the tool's `lang` (default eng).
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { ocrLanguageProblem } from '../../../core/engines/tesseract.js';
import { pdfToMarkdown } from '../shared/engine/index.js';

const USAGE = 'usage: pdf-to-markdown <file.pdf> [--keep-running] [--no-page-breaks] [--lang eng+fra] [--json]';

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      'keep-running': { type: 'boolean', default: false },
      'no-page-breaks': { type: 'boolean', default: false },
      lang: { type: 'string', default: 'eng' },
      json: { type: 'boolean', default: false },
    },
  });
  if (positionals.length !== 1) throw new Error(USAGE);
  const langProblem = ocrLanguageProblem(values.lang);
  if (langProblem) throw new Error(`--lang ${langProblem}`);
  const pdf = new Uint8Array(await readFile(positionals[0]!));
  const result = await pdfToMarkdown(pdf, {
    keepRunning: values['keep-running'],
    pageBreaks: !values['no-page-breaks'],
    lang: values.lang,
  });
  process.stdout.write(values.json ? `${JSON.stringify(result)}\n` : result.markdown);
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`pdf-to-markdown: ${message.split('\n')[0]}\n`);
  process.exitCode = 1;
});
