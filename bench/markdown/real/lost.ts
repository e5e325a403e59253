/**
 * Where word recall and two-column order are lost, file by file, on the TUNING half or the extra set only (the
 * held-out half is measured by run.ts, never read): the words pdftotext has that the output lacks,
 * and the two-column pages whose word pairs the output breaks most.
 *
 *   npx tsx bench/markdown/real/lost.ts <dir written by run.ts --out> [--half tune|extra] [--only text] [--words N]
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadRealCorpus, outputName, realCacheDir } from './corpus.js';
import { bodyWordsByPage, columnWordsByPage, outputPages, outputWords, pairs, tokens, withoutWords } from './score.js';
import { truthOf } from './truth.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { only: { type: 'string' }, words: { type: 'string', default: '40' }, half: { type: 'string' } },
});
const dir = positionals[0];
if (!dir) throw new Error('usage: lost.ts <dir written by run.ts --out>');

// Tuning material only: the tuning half (default) or the extra set; never the held-out half.
const half = values.half === 'extra' ? 'extra' : 'tune';
const corpus = loadRealCorpus((pdf) => pdf.half === half && (!values.only || pdf.id.includes(values.only)));
for (const pdf of corpus) {
  const file = join(dir, `${outputName(pdf.id)}.ours.md`);
  if (!existsSync(file)) continue;
  const markdown = readFileSync(file, 'utf8');
  const truth = await truthOf(pdf, realCacheDir());
  const body = bodyWordsByPage(truth);
  const lost = withoutWords(body.flat(), outputWords(markdown));
  const total = body.flat().length;
  const counts = new Map<string, number>();
  for (const word of lost) counts.set(word, (counts.get(word) ?? 0) + 1);
  const top = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, Number(values.words));
  const pages = outputPages(markdown);
  const order = [...columnWordsByPage(truth)].map(([page, words]) => {
    const expected = pairs(words);
    const broken = withoutWords(expected, pairs(tokens(pages.get(page) ?? '')));
    return { page, total: expected.length, broken: broken.length };
  });
  const orderLost = order.reduce((n, p) => n + p.broken, 0);
  console.log(
    `\n== ${pdf.id.replace(/^.*\//, '')}  recall ${(1 - lost.length / Math.max(1, total)).toFixed(3)} ` +
      `(${lost.length} of ${total} lost)  order lost ${orderLost} of ${order.reduce((n, p) => n + p.total, 0)}`,
  );
  console.log(`   lost: ${top.map(([w, n]) => (n > 1 ? `${w}×${n}` : w)).join(' ')}`);
  const worst = order
    .filter((p) => p.broken)
    .sort((a, b) => b.broken - a.broken)
    .slice(0, 6);
  if (worst.length) console.log(`   order: ${worst.map((p) => `p${p.page} ${p.broken}/${p.total}`).join(', ')}`);
}
