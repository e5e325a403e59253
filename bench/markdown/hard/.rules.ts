import { readFileSync } from 'node:fs';
import { Deadline, openDocument, readPage } from '/work/wt/ratchet/plugins/markdown/shared/engine/pdf.js';
const [name, pageArg] = process.argv.slice(2);
const deadline = new Deadline(600000);
const doc = await openDocument(
  new Uint8Array(readFileSync(`/work/wt/ratchet/bench/markdown/hard/files/${name}.pdf`)),
  deadline,
);
const page = await readPage(doc, Number(pageArg ?? 1), deadline);
for (const r of page.rules) console.log('rule', r.x0.toFixed(1), r.y0.toFixed(1), r.x1.toFixed(1), r.y1.toFixed(1));
for (const r of page.runs.slice(0, Number(process.env.RUNS ?? 0)))
  console.log('run', r.x0.toFixed(1), r.x1.toFixed(1), r.baseline.toFixed(1), JSON.stringify(r.text));
