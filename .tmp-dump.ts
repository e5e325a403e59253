import { mkdtempSync, readFileSync, writeFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cvText } from './plugins/cv/text.js';
import { parseCv } from './plugins/cv/parse.js';
import { scoreRow, FIELDS } from './bench/cv/score.js';
import { halfOf } from './bench/cv/run.js';
import { yearsOn } from './bench/cv/corpus/model.js';
const [corpus, mode, filter] = process.argv.slice(2);
const dir = corpus === 'second' ? 'bench/cv/second' : 'bench/cv/corpus';
const truths = JSON.parse(readFileSync(join(dir, 'truth.json'), 'utf8')).filter((t: any) => !filter || t.id.includes(filter));
const now = { year: 2026, month: 11 };
const results: any[] = [];
for (const t of truths) {
  const cache = `/tmp/cvs/texts/${corpus}-${t.id}.json`;
  let got: any;
  try { got = JSON.parse(readFileSync(cache, 'utf8')); } catch {
    if (t.format === 'scan') continue;
    const path = join(dir, 'files', t.file);
    const ctx: any = { workDir: mkdtempSync(join(tmpdir(), 'cvd-')), signal: new AbortController().signal, progress() {}, log: console, report() {}, remainingMs: () => 60000, target: 'json' };
    got = await cvText({ path, format: t.format, bytes: statSync(path).size } as any, ctx);
    writeFileSync(cache, JSON.stringify(got));
  }
  if (mode === 'text') { console.log(`===== ${t.id}\n${got.text}`); continue; }
  const row = parseCv(got.text, { now, ocr: got.ocr });
  const scores = scoreRow(row as any, t, now);
  results.push({ t, row, scores });
  if (mode === 'v') for (const s of scores.filter((s) => !s.right)) {
    const want = s.field === 'years_exp' ? yearsOn(t.experience, now) : t[s.field];
    console.log(`${t.id} ${s.field.padEnd(9)} c=${s.confidence} got ${JSON.stringify((row as any)[s.field])} want ${JSON.stringify(want)}`);
  }
}
if (mode !== 'text') for (const h of ['tuning', 'held-out', 'all']) {
  const rs = results.filter((r) => h === 'all' || halfOf(r.t.id) === h);
  const all = rs.flatMap((r) => r.scores);
  const m = (xs: number[]) => (xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(3);
  const sure = all.filter((s: any) => s.found && s.confidence >= 0.8);
  console.log(h.padEnd(9), 'overall', m(all.map((s: any) => s.score)), FIELDS.map((f) => `${f}=${m(all.filter((s: any) => s.field === f).map((s: any) => s.score))}`).join(' '), 'calib', m(sure.map((s: any) => (s.right ? 1 : 0))), sure.length);
}
