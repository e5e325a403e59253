/**
 * The real corpus: PDFs shipped in Debian documentation packages, fetched at bench time with
 * `apt-get download` into a cache under .tmp/, extracted with `dpkg-deb -x`, and checked
 * against the sha256 pinned in manifest.json (package .deb and each PDF). A package version the
 * archive no longer serves, or a file whose bytes changed, is skipped with a message.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ManifestPackage {
  name: string;
  version: string;
  /** sha256 of the .deb as downloaded. */
  sha256: string;
}

export interface ManifestPdf {
  /** `package:/path/inside/the/package.pdf` (a `.pdf.gz` is read unzipped, under the `.pdf` name). */
  id: string;
  package: string;
  path: string;
  sha256: string;
  pages: number;
  producer: string;
  creator: string;
  /**
   * Decided by sha256(id) before any result was seen: tune on one half, only measure the other.
   * `extra`: a third set from other packages (manifest-extra.json), tuning material only.
   */
  half: 'tune' | 'heldout' | 'extra';
}

export interface Manifest {
  packages: ManifestPackage[];
  pdfs: ManifestPdf[];
}

const HERE = dirname(fileURLToPath(import.meta.url));
export const MANIFEST_PATH = join(HERE, 'manifest.json');
/** The `extra` tuning set: other documentation packages, chosen by the same rule (select.ts --set extra). */
export const EXTRA_MANIFEST_PATH = join(HERE, 'manifest-extra.json');

/**
 * Every package the selection looked in (select.ts); the manifest keeps those it took files from. Packages whose
 * documents are reserved for the hidden held-out set (debian-policy, maxima-doc, octave-doc, r-doc-pdf) were in this
 * list once; none of their files was ever selected, and select.ts takes files in a fixed order with caps, so leaving
 * them out selects the same files.
 */
export const PACKAGES: ManifestPackage[] = [
  {
    name: 'asymptote-doc',
    version: '2.85+ds-1',
    sha256: 'b2ae6e97c64ede66c1e41cc913f790b01188d198557203a2b3c500ba3495e6ca',
  },
  { name: 'bash-doc', version: '5.2.15-2', sha256: '2c1a353f7004d14ba81db19c253b958d2dd9582027650739c530fd50376a9d8b' },
  {
    name: 'dblatex-doc',
    version: '0.3.12py3-2',
    sha256: 'd5071654a04581ea023604cb2705ef71d13677a054023616ae9a8172a67f92f4',
  },
  {
    name: 'gnu-standards',
    version: '2022.03.23-0.1',
    sha256: '2087dda531c69d8505856a45e0334746f3f25211a237c95d375eed13a7d8c201',
  },
  {
    name: 'gnuplot-doc',
    version: '5.4.4+dfsg1-2',
    sha256: '73fe1816a296594cf6a1d38528f8d740fd650f57a2cb62e029f7920fcd5b31f0',
  },
  { name: 'groff', version: '1.22.4-10', sha256: 'c30d56dad45ab7fe8d57f545381203297b23fabd7475e5acd133f15dcaef2355' },
  {
    name: 'python-reportlab-doc',
    version: '3.6.12-1+deb12u1',
    sha256: 'f7d27c209eb0c2063b604f34414681d0694a83280aa1668f0bccc685f607131c',
  },
  {
    name: 'texlive-fonts-recommended-doc',
    version: '2022.20230122-3',
    sha256: '566ee17ea41c6094b0438af03935a8e26b3c38433213177386e93be3a2087131',
  },
  {
    name: 'texlive-latex-recommended-doc',
    version: '2022.20230122-3',
    sha256: '8bea1f81bf50354fa4f3046c2dbb82efba9b8520aca0b2ab12eed18554a66c11',
  },
  {
    name: 'texlive-publishers-doc',
    version: '2022.20230122-4',
    sha256: '9b632913d4b0d0871bef41c414fc7ce1167e3bacb55b140901df0c95df1c5765',
  },
  {
    name: 'texlive-science-doc',
    version: '2022.20230122-4',
    sha256: '0e0fcc74646b916402124e8394a7a8d896e1c959cd9b184b0d7a61e08c6e72db',
  },
  {
    name: 'xfig-doc',
    version: '1:3.2.8b-2',
    sha256: '36b17319b7c3fd7c670bd24dbce393e0776e1a4347a9467166194c8baec5644f',
  },
];

/**
 * Packages the `extra` set looked in: Debian 12 documentation packages the corpus above does not
 * use (TeX Live documentation of other collections, and PDF manuals made by other tool chains).
 */
export const EXTRA_PACKAGES: ManifestPackage[] = [
  {
    name: 'auto-multiple-choice-doc-pdf',
    version: '1.6.0-1',
    sha256: 'a5f8ab9a3b48273d720561990af1078c8c2b19ba1b98634ad4e2073748f436ec',
  },
  {
    name: 'docbook-xsl-doc-pdf',
    version: '1.79.1-1',
    sha256: 'b0b961def787d991d4d5f9395bb68cdd1d587f97b8f1f9ebc50482a3b097ec8c',
  },
  {
    name: 'gri-pdf-doc',
    version: '2.12.27-1.1',
    sha256: '0873a873dbd41d1536c9f48388f4bf30ee0758309b0a597412860b865a187f92',
  },
  {
    name: 'texlive-fonts-extra-doc',
    version: '2022.20230122-4',
    sha256: 'cc1e9ce96315d77ad381580a5d1bb304f88f67fb4667f97fd57ebc88f76295d0',
  },
  {
    name: 'texlive-humanities-doc',
    version: '2022.20230122-4',
    sha256: 'b9ff3e33bfad812999000ae009d701d867701afad144433c36a78322f3d88e33',
  },
  {
    name: 'texlive-latex-base-doc',
    version: '2022.20230122-3',
    sha256: '122dbbe00bd22f872b1837eb86bd76fbac6ec84dd4f5f0c76cc9c18484485848',
  },
  {
    name: 'texlive-metapost-doc',
    version: '2022.20230122-3',
    sha256: '72dfff342c161c075a9f20369cc9a06fa82fa767e439503329e8b1ccd8f40c78',
  },
  {
    name: 'texlive-pictures-doc',
    version: '2022.20230122-3',
    sha256: '9f24a348a9461952e09cac3a2c5e1617f00e9054bea1ab1a124a724cc7f40751',
  },
  {
    name: 'texlive-pstricks-doc',
    version: '2022.20230122-4',
    sha256: '58245450a253c801943d4724d83037fab7e2794d07dab721dbd6da23c59a7970',
  },
];

export function realCacheDir(): string {
  const dir = process.env.MARKDOWN_REAL_CACHE ?? join(HERE, '../../../.tmp/bench/markdown-real');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * A copy of the PDF without its outline (qpdf copies the pages into an empty PDF, which leaves /Outlines behind), kept
 * in the cache: headings measured on it come from the page alone, not from the outline.
 */
export function outlineRemovedCopy(pdf: { file: string; sha256: string }, cache: string): string {
  const dir = join(cache, 'no-outline');
  mkdirSync(dir, { recursive: true });
  const copy = join(dir, `${pdf.sha256}.pdf`);
  if (!existsSync(copy)) execFileSync('qpdf', ['--empty', '--pages', pdf.file, '--', copy]);
  return copy;
}

/** Where the `extra` set's packages are kept: MARKDOWN_REAL_EXTRA_CACHE, else beside the corpus cache. */
export function extraCacheDir(): string {
  const dir = process.env.MARKDOWN_REAL_EXTRA_CACHE ?? `${realCacheDir().replace(/\/+$/, '')}-extra`;
  mkdirSync(dir, { recursive: true });
  return dir;
}

const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

/** The .deb of one pinned package version, downloaded once; undefined (with a message) if not served or changed. */
function fetchPackage(pkg: ManifestPackage, cache: string): string | undefined {
  const debs = join(cache, 'debs');
  mkdirSync(debs, { recursive: true });
  const find = () =>
    readdirSync(debs).find(
      (f) => f.startsWith(`${pkg.name}_`) && f.endsWith('.deb') && sha256(readFileSync(join(debs, f))) === pkg.sha256,
    );
  let file = find();
  if (!file) {
    try {
      execFileSync('apt-get', ['download', `${pkg.name}=${pkg.version}`], {
        cwd: debs,
        stdio: 'pipe',
        timeout: 600_000,
      });
    } catch (error) {
      console.log(
        `SKIP ${pkg.name} ${pkg.version}: apt-get download failed (${
          String((error as { stderr?: Buffer }).stderr ?? error)
            .split('\n')
            .find(Boolean) ?? 'no message'
        }); its PDFs are left out`,
      );
      return undefined;
    }
    file = find();
    if (!file)
      console.log(
        `SKIP ${pkg.name} ${pkg.version}: the downloaded .deb does not match the pinned sha256; its PDFs are left out`,
      );
  }
  return file && join(debs, file);
}

/** Each package's extracted tree (`.pdf.gz` files unzipped beside themselves). */
export function extractPackages(
  cache: string,
  packages: readonly ManifestPackage[] = PACKAGES,
): Map<ManifestPackage, string> {
  const roots = new Map<ManifestPackage, string>();
  for (const pkg of packages) {
    const deb = fetchPackage(pkg, cache);
    if (!deb) continue;
    const root = join(cache, 'tree', `${pkg.name}_${pkg.sha256.slice(0, 12)}`);
    if (!existsSync(join(root, '.done'))) {
      mkdirSync(root, { recursive: true });
      execFileSync('dpkg-deb', ['-x', deb, root], { timeout: 600_000 });
      unzipPdfs(root);
      execFileSync('touch', [join(root, '.done')]);
    }
    roots.set(pkg, root);
  }
  return roots;
}

function unzipPdfs(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) unzipPdfs(path);
    else if (entry.name.endsWith('.pdf.gz') && !existsSync(path.slice(0, -3))) {
      execFileSync('sh', ['-c', 'gzip -dc "$1" > "$2"', 'sh', path, path.slice(0, -3)]);
    }
  }
}

/** The name run.ts --out gives a PDF's outputs (`<name>.ours.md`, `<name>.anchor.md`); lost.ts reads them back. */
export const outputName = (pdfId: string): string => pdfId.replace(/^([^:]+):.*\/([^/]+)\.pdf$/, '$1--$2');

export interface RealPdf extends ManifestPdf {
  file: string;
}

/** The manifests' PDFs (corpus halves and the `extra` set) that could be fetched and match their pinned sha256. */
export function loadRealCorpus(filter?: (pdf: ManifestPdf) => boolean): RealPdf[] {
  const sets: [string, () => string][] = [
    [MANIFEST_PATH, realCacheDir],
    [EXTRA_MANIFEST_PATH, extraCacheDir],
  ];
  return sets.flatMap(([path, cacheDir]) => (existsSync(path) ? loadManifest(path, cacheDir, filter) : []));
}

function loadManifest(path: string, cacheDir: () => string, filter?: (pdf: ManifestPdf) => boolean): RealPdf[] {
  const manifest = JSON.parse(readFileSync(path, 'utf8')) as Manifest;
  const wanted = manifest.pdfs.filter(filter ?? (() => true));
  if (!wanted.length) return [];
  const roots = extractPackages(
    cacheDir(),
    manifest.packages.filter((p) => wanted.some((w) => w.package === p.name)),
  );
  const byName = new Map([...roots].map(([pkg, root]) => [pkg.name, root]));
  return wanted.flatMap((pdf) => {
    const root = byName.get(pdf.package);
    if (!root) return [];
    const file = join(root, pdf.path);
    if (!existsSync(file) || sha256(readFileSync(file)) !== pdf.sha256) {
      console.log(`SKIP ${pdf.id}: missing or its sha256 changed`);
      return [];
    }
    return [{ ...pdf, file }];
  });
}
