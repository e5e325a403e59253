/**
 * Chooses the real corpus once, by rule, and writes manifest.json (run again only to rebuild it):
 *
 *   npx tsx bench/markdown/real/select.ts [--set extra]
 *
 * Rule, fixed before any result was looked at: every PDF of 2–40 pages with a text layer
 * (>= 150 words from pdftotext) in the packages below, grouped by producer family (pdfinfo
 * Producer, Creator for PScript/Word); within a family, files are ordered by sha256("order:" + id)
 * and taken in that order, at most FAMILY_CAP per family and PER_DIR_CAP per folder. The
 * tuning / held-out half is the first hex digit of sha256(id): 0-7 tune, 8-f held out.
 *
 * `--set extra` applies the same rule, with the caps of EXTRA_FAMILY_CAP, to EXTRA_PACKAGES
 * (packages the corpus does not use), leaves out any file the corpus already holds, and writes
 * manifest-extra.json: a third set, tuning material only, reported on its own row.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import {
  EXTRA_MANIFEST_PATH,
  EXTRA_PACKAGES,
  extraCacheDir,
  extractPackages,
  MANIFEST_PATH,
  type Manifest,
  type ManifestPdf,
  PACKAGES,
  realCacheDir,
} from './corpus.js';

const extra = parseArgs({ options: { set: { type: 'string' } } }).values.set === 'extra';

const FAMILY_CAP: Record<string, number> = {
  pdftex: 16,
  luatex: 8,
  xetex: 8,
  dvipdfmx: 6,
  ghostscript: 10,
  distiller: 10,
  groff: 6,
  other: 8,
};
/** The extra set is kept moderate (~30-40 files): about two thirds of the corpus caps. */
const EXTRA_FAMILY_CAP: Record<string, number> = {
  pdftex: 10,
  luatex: 6,
  xetex: 6,
  dvipdfmx: 4,
  ghostscript: 6,
  distiller: 6,
  groff: 4,
  other: 6,
};
const PER_DIR_CAP = 2;
const MIN_PAGES = 2;
const MAX_PAGES = 40;
const MIN_WORDS = 150;

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

function family(producer: string, creator: string): string {
  const p = producer.toLowerCase();
  const c = creator.toLowerCase();
  if (/gropdf|groff/.test(p + c)) return 'groff';
  if (/distiller|pscript|microsoft/.test(p + c)) return 'distiller';
  if (/luatex|luahbtex/.test(p)) return 'luatex';
  if (/xetex/.test(p + c)) return 'xetex';
  if (/dvipdfm/.test(p)) return 'dvipdfmx';
  if (/pdftex|pdfetex|pdflatex/.test(p)) return 'pdftex';
  if (/ghostscript/.test(p)) return 'ghostscript';
  return 'other';
}

function* walk(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else if (entry.name.endsWith('.pdf')) yield path;
  }
}

function info(path: string): Record<string, string> {
  try {
    const out = execFileSync('pdfinfo', [path], {
      encoding: 'latin1',
      timeout: 10_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return Object.fromEntries(
      out
        .split('\n')
        .map((l) => /^([^:]+):\s*(.*)$/.exec(l))
        .filter((m) => m)
        .map((m) => [m![1]!, m![2]!]),
    );
  } catch {
    return {};
  }
}

function words(path: string): number {
  try {
    return execFileSync('pdftotext', [path, '-'], {
      encoding: 'utf8',
      timeout: 20_000,
      maxBuffer: 64 << 20,
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .split(/\s+/)
      .filter((w) => /\p{L}{2}/u.test(w)).length;
  } catch {
    return 0;
  }
}

const packages = extra ? EXTRA_PACKAGES : PACKAGES;
const caps = extra ? EXTRA_FAMILY_CAP : FAMILY_CAP;
const roots = extractPackages(extra ? extraCacheDir() : realCacheDir(), packages);
const candidates: (ManifestPdf & { family: string; dir: string; order: string })[] = [];
for (const [pkg, root] of roots) {
  for (const path of walk(root)) {
    const meta = info(path);
    const pages = Number(meta.Pages ?? 0);
    if (pages < MIN_PAGES || pages > MAX_PAGES) continue;
    if (words(path) < MIN_WORDS) continue;
    const inside = `/${relative(root, path)}`;
    const id = `${pkg.name}:${inside}`;
    candidates.push({
      id,
      package: pkg.name,
      path: inside,
      sha256: sha256(readFileSync(path)),
      pages,
      producer: (meta.Producer ?? '').trim(),
      creator: (meta.Creator ?? '').trim(),
      half: extra ? 'extra' : parseInt(sha256(id)[0]!, 16) < 8 ? 'tune' : 'heldout',
      family: family(meta.Producer ?? '', meta.Creator ?? ''),
      dir: `${pkg.name}:${dirname(inside)}`,
      order: sha256(`order:${id}`),
    });
  }
}
candidates.sort((a, b) => (a.order < b.order ? -1 : 1));
const taken = new Map<string, number>();
const perDir = new Map<string, number>();
// The same file shipped twice, or (for the extra set) already in the corpus.
const seen = new Set<string>(
  extra ? (JSON.parse(readFileSync(MANIFEST_PATH, 'utf8')) as Manifest).pdfs.map((p) => p.sha256) : [],
);
const chosen = candidates.filter((c) => {
  if (seen.has(c.sha256)) return false;
  if ((taken.get(c.family) ?? 0) >= (caps[c.family] ?? 0) || (perDir.get(c.dir) ?? 0) >= PER_DIR_CAP) return false;
  taken.set(c.family, (taken.get(c.family) ?? 0) + 1);
  perDir.set(c.dir, (perDir.get(c.dir) ?? 0) + 1);
  seen.add(c.sha256);
  return true;
});
const manifest: Manifest = {
  packages: packages.filter((p) => chosen.some((c) => c.package === p.name)),
  pdfs: chosen.map(({ family: _f, dir: _d, order: _o, ...pdf }) => pdf).sort((a, b) => (a.id < b.id ? -1 : 1)),
};
writeFileSync(extra ? EXTRA_MANIFEST_PATH : MANIFEST_PATH, `${JSON.stringify(manifest, null, 2)}\n`);
console.log(
  `${manifest.pdfs.length} PDFs, ${manifest.pdfs.reduce((n, p) => n + p.pages, 0)} pages; by family:`,
  Object.fromEntries(taken),
);
