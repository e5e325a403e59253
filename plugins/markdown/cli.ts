/**
 * npm run --silent pdf-to-markdown -- <file.pdf> [--keep-running] [--no-page-breaks] [--json]
 * Prints the Markdown, or with --json the row object {pages, markdown, stats}.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { pdfToMarkdown } from './engine/index.js';

const USAGE = 'usage: pdf-to-markdown <file.pdf> [--keep-running] [--no-page-breaks] [--json]';

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      'keep-running': { type: 'boolean', default: false },
      'no-page-breaks': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  if (positionals.length !== 1) throw new Error(USAGE);
  const pdf = new Uint8Array(await readFile(positionals[0]!));
  const result = await pdfToMarkdown(pdf, { keepRunning: values['keep-running'], pageBreaks: !values['no-page-breaks'] });
  process.stdout.write(values.json ? `${JSON.stringify(result)}\n` : result.markdown);
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`pdf-to-markdown: ${message.split('\n')[0]}\n`);
  process.exitCode = 1;
});
