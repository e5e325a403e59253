import { readFileSync } from 'node:fs';
import { pdfToMarkdown } from '/work/wt/ratchet/plugins/markdown/shared/engine/index.js';
for (const name of process.argv.slice(2)) {
  const { markdown } = await pdfToMarkdown(
    new Uint8Array(readFileSync(`/work/wt/ratchet/bench/markdown/hard/files/${name}.pdf`)),
    { timeoutMs: 600000 },
  );
  console.log(`=== ${name}\n${markdown}`);
}
