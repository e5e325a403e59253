/**
 * Fonts every document engine draws with (LibreOffice, Chromium, Ghostscript, and so pandoc's outputs once
 * rendered), and the fontconfig set-up they share:
 * - FONT_PACKAGES: Debian packages covering the world's main writing systems (Noto), Chinese, Japanese and
 *   Korean (Noto CJK), colour emoji, and the metric-compatible stand-ins for Microsoft's fonts (Carlito for
 *   Calibri, Caladea for Cambria, Liberation for Arial, Times New Roman and Courier New), so a Word document keeps
 *   its line breaks and page count. Debian's fontconfig already aliases Calibri, Cambria, Arial... to them.
 * - configureFonts(fontsDir): this process's engines read a generated fontconfig file (FONTCONFIG_FILE): the
 *   system's configuration, the operator's FONTS_DIR, and fallback rules (below). Jails bind the file and the
 *   folder read-only (confine.ts: fontJailBinds).
 *
 * Why fallback rules: a character the document's font lacks is drawn with the font fontconfig ranks first among
 * those that have it. For Han characters every CJK font has them, and the shapes differ by language (the same
 * code point is drawn differently in Simplified and Traditional Chinese, Japanese and Korean), so the ranking must
 * follow the text's language: the Noto CJK face of that language is appended to the family list with a strong
 * binding, which ranks it above the weakly bound fallbacks (IPA Gothic for every Han character...) while an
 * installed font the document names still comes first.
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const FONT_PACKAGES = [
  // Latin, Greek, Cyrillic, Armenian, Georgian, Hebrew, Arabic, Indic, South-East Asian, Ethiopic, Tibetan...
  'fonts-noto-core',
  // Chinese (Simplified, Traditional, Hong Kong), Japanese, Korean: one collection with a face per language.
  'fonts-noto-cjk',
  'fonts-noto-color-emoji',
  // Metric-compatible with Calibri, Cambria, and Arial / Times New Roman / Courier New.
  'fonts-crosextra-carlito',
  'fonts-crosextra-caladea',
  'fonts-liberation2',
  'fonts-dejavu-core',
] as const;

/**
 * The Noto CJK face for a text's language tag, as fontconfig sees it (lower case; a bare tag or one with a
 * region or script: "ja", "ja-jp", "zh-hant-tw"...). Hong Kong first: "zh-hant-hk" is Hong Kong's face, not Taiwan's.
 */
const CJK_LANGUAGES: ReadonlyArray<
  readonly [compare: 'eq' | 'contains', tag: string, face: 'SC' | 'TC' | 'HK' | 'JP' | 'KR']
> = [
  ['contains', '-hk', 'HK'],
  ['contains', 'zh-mo', 'HK'],
  ['contains', 'zh-tw', 'TC'],
  ['contains', 'zh-hant', 'TC'],
  ['eq', 'zh', 'SC'],
  ['contains', 'zh-cn', 'SC'],
  ['contains', 'zh-sg', 'SC'],
  ['contains', 'zh-hans', 'SC'],
  ['eq', 'ja', 'JP'],
  ['contains', 'ja-', 'JP'],
  ['eq', 'ko', 'KR'],
  ['contains', 'ko-', 'KR'],
];

const xmlText = (text: string) => text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The fontconfig configuration engines read: the system's, `fontsDir`'s fonts (absolute), the fallback rules. */
export function fontconfigFile(fontsDir: string | undefined): string {
  const rules = CJK_LANGUAGES.map(([compare, tag, face]) => {
    const language = `    <test name="lang" compare="${compare}"><string>${tag}</string></test>\n`;
    // Serif text falls back to the serif face, monospaced text to the mono face, anything else to the sans face.
    const generic = (family: string, generic: string) =>
      `  <match target="pattern">\n${language}` +
      `    <test name="family" qual="any" compare="eq"><string>${generic}</string></test>\n` +
      `    <edit name="family" mode="append" binding="strong"><string>${family}</string></edit>\n  </match>\n`;
    return (
      generic(`Noto Serif CJK ${face}`, 'serif') +
      generic(`Noto Sans Mono CJK ${face}`, 'monospace') +
      `  <match target="pattern">\n${language}` +
      `    <edit name="family" mode="append" binding="strong"><string>Noto Sans CJK ${face}</string></edit>\n ` +
      ` </match>\n`
    );
  }).join('');
  return (
    '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">\n<fontconfig>\n' +
    '  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>\n' +
    (fontsDir ? `  <dir>${xmlText(fontsDir)}</dir>\n` : '') +
    rules +
    '</fontconfig>\n'
  );
}

export interface FontSetup {
  /** The generated fontconfig file. */
  file: string;
  /** The operator's fonts folder, when set. */
  fontsDir?: string;
}

let setup: FontSetup | undefined;

/**
 * Writes this process's fontconfig file (with `fontsDir`, the operator's FONTS_DIR, absolute) and points this
 * process's children at it (FONTCONFIG_FILE, for engines run unconfined). Call at start-up, before any engine runs;
 * again with the same folder, it keeps the file it wrote. The file is named after its content and the user, in a
 * folder only this user can write: every process with the same set-up shares it, and a killed one leaves nothing new.
 */
export function configureFonts(given: string | undefined): FontSetup {
  const fontsDir = given === undefined ? undefined : path.resolve(given);
  if (setup && setup.fontsDir === fontsDir) return setup;
  const content = fontconfigFile(fontsDir);
  const uid = process.getuid?.() ?? 0;
  const digest = createHash('sha256').update(content).digest('hex').slice(0, 16);
  const dir = path.join(os.tmpdir(), `transmute-fonts-${uid}-${digest}`);
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const folder = lstatSync(dir);
  if (!folder.isDirectory() || folder.uid !== uid || (folder.mode & 0o022) !== 0) {
    throw new Error(`The fonts configuration folder ${dir} is not this user's own: remove it`);
  }
  const file = path.join(dir, 'fonts.conf');
  if (!existsSync(file) || readFileSync(file, 'utf8') !== content) {
    const partial = `${file}.${process.pid}`;
    writeFileSync(partial, content, { mode: 0o644 });
    renameSync(partial, file);
  }
  useFontSetup({ file, ...(fontsDir ? { fontsDir } : {}) });
  return setup!;
}

/** Adopts a set-up written by another process (a sandbox process uses the server's file). */
export function useFontSetup(given: FontSetup): void {
  setup = given;
  process.env.FONTCONFIG_FILE = given.file;
}

/** This process's set-up, for the sandbox processes' settings; undefined before configureFonts. */
export function fontSetup(): FontSetup | undefined {
  return setup;
}

/**
 * What a jail needs for the fonts set-up: read-only binds of the fontconfig file and the fonts folder, and the
 * FONTCONFIG_FILE variable. Empty before configureFonts (engines then read the system's configuration).
 */
export function fontJailBinds(): { binds: string[]; env: Record<string, string> } {
  if (!setup) return { binds: [], env: {} };
  const binds = ['--ro-bind', setup.file, setup.file];
  if (setup.fontsDir) binds.push('--ro-bind-try', setup.fontsDir, setup.fontsDir);
  return { binds, env: { FONTCONFIG_FILE: setup.file } };
}
