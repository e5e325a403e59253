/**
 * Ghostscript (AGPL): re-renders a PDF through its pdfwrite device, e.g. to downsample and
 * re-encode images. Always with -dSAFER (no file access beyond its arguments).
 *
 * Chinese, Japanese and Korean text in a font the PDF names but does not embed (MS-Mincho, SimSun, Ryumin-Light,
 * STSong-Light... with Identity-H or a Unicode CMap): Ghostscript draws it with a substitute CIDFont from its
 * cidfmap, by the font's character collection (Adobe-Japan1, -GB1, -CNS1, -Korea1). Debian's cidfmap names fonts
 * that are not installed, and Ghostscript 10.0's PDF interpreter then writes the CIDs as glyph numbers of whatever
 * font it falls back to: the text layer still reads right while every character is drawn as another glyph. Such
 * a PDF is run with Ghostscript's own cidfmap (ghostscript-cidfmap/: TrueType fonts, since Ghostscript 10.0 cannot
 * substitute with the CFF outlines of Noto CJK) through its PostScript PDF interpreter (-dNEWPDF=false), which
 * maps each CID through Unicode to the substitute's glyph.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PluginError, type EngineRequirement } from '../contract/index.js';
import { engineDetail, isExitFailure, runOptions, withDetail, type EngineContext } from './common.js';
import { FONT_PACKAGES } from './fonts.js';
import { pdfFonts } from './poppler.js';
import { runProcess, type RunOptions } from './process.js';

/**
 * The TrueType CJK fonts ghostscript-cidfmap/cidfmap names: IPA Gothic for Japanese, WenQuanYi Micro Hei (all of
 * Chinese's and Korean's characters in 5 MB) for the rest.
 */
export const CIDFONT_SUBSTITUTES = {
  japanese: '/usr/share/fonts/opentype/ipafont-gothic/ipag.ttf',
  chineseAndKorean: '/usr/share/fonts/truetype/wqy/wqy-microhei.ttc',
} as const;

/** Fonts: what a PDF names but does not embed is drawn (and embedded, for PDF/A) from the installed fonts. */
export const GHOSTSCRIPT: EngineRequirement = {
  command: 'gs',
  debian: ['ghostscript', ...FONT_PACKAGES, 'fonts-ipafont-gothic', 'fonts-wqy-microhei', 'poppler-utils'],
  license: 'AGPL-3.0-or-later',
};

/** The folder of Ghostscript's CIDFont substitution map (a file named cidfmap, found through -I). */
export const CIDFMAP_DIR = fileURLToPath(new URL('./ghostscript-cidfmap/', import.meta.url));

/**
 * Interpreter arguments for `input`: the CIDFont map and the PostScript interpreter when a page uses a CIDFont
 * that is not embedded (pdffonts); none otherwise, or when pdffonts cannot read the file (gs then tells).
 */
async function interpreterArguments(input: string, ctx: EngineContext): Promise<string[]> {
  const fonts = await pdfFonts(input, ctx).catch((err: unknown) => {
    if (ctx.signal.aborted) throw err;
    return [];
  });
  const unembeddedCid = fonts.some((font) => font.type.startsWith('CID') && !font.embedded);
  return unembeddedCid ? [`-I${CIDFMAP_DIR}`, '-dNEWPDF=false'] : [];
}

/** Ghostscript's notice that the PostScript PDF interpreter is deprecated: never the reason a run failed. */
const LEGACY_NOTICE = /^.*legacy PDF interpreter.*$/gm;

/**
 * Ghostscript failures as client messages: `summary` with its own words; aborts, timeouts and a missing gs pass
 * through.
 */
export function ghostscriptFailure(err: unknown, signal: AbortSignal, summary: string): unknown {
  if (!isExitFailure(err, signal)) return err;
  return new PluginError(withDetail(summary, engineDetail(err.stderrTail.replace(LEGACY_NOTICE, ''))), {
    cause: err,
  });
}

/**
 * runProcess options and the file-access arguments of one gs run. -dSAFER still lets Ghostscript read its temporary
 * folder, and a PDF's external stream (`/F (/tmp/...)`) reads whatever is there: outside a jail that is the host's
 * /tmp, with other programs' files. TMPDIR is the run's own folder (where the output goes) instead, and reading is
 * permitted for the input (and the run's `readable` files) only.
 */
async function safeRun(
  ctx: EngineContext,
  input: string,
  output: string,
  readable: readonly string[] = [],
): Promise<{ options: RunOptions; permits: string[]; interpreter: string[] }> {
  return {
    options: runOptions(ctx, { env: { ...process.env, TMPDIR: path.dirname(output) }, readable: [CIDFMAP_DIR] }),
    permits: [input, ...readable].map((file) => `--permit-file-read=${file}`),
    interpreter: await interpreterArguments(input, ctx),
  };
}

export interface PdfWriteOptions {
  /** A -dPDFSETTINGS profile: /screen, /ebook, /printer, /prepress. */
  settings: '/screen' | '/ebook' | '/printer' | '/prepress';
  /** The failure message's summary. */
  summary: string;
  /** Overrides the profile's image settings: colour and grey images downsampled to `dpi`, JPEG at `qFactor`. */
  images?: PdfWriteImages;
}

export interface PdfWriteImages {
  /** Target resolution of colour and grey images (those above it are downsampled, bicubic). */
  dpi: number;
  /** pdfwrite's JPEG QFactor: 0.1 is near lossless, 1 about IJG quality 50, 5 very coarse. */
  qFactor: number;
}

/** pdfwrite arguments for explicit image settings; the PostScript part sets the JPEG quality tables. */
function imageArguments({ dpi, qFactor }: PdfWriteImages): string[] {
  const resolution = Math.round(dpi);
  const jpeg = `<< /QFactor ${qFactor.toFixed(2)} /Blend 1 /HSamples [2 1 1 2] /VSamples [2 1 1 2] >>`;
  return [
    '-dDownsampleColorImages=true',
    '-dDownsampleGrayImages=true',
    '-dColorImageDownsampleType=/Bicubic',
    '-dGrayImageDownsampleType=/Bicubic',
    `-dColorImageResolution=${resolution}`,
    `-dGrayImageResolution=${resolution}`,
    // Downsample whatever is above the target, not only what is 1.5 times above it (the default).
    '-dColorImageDownsampleThreshold=1.0',
    '-dGrayImageDownsampleThreshold=1.0',
    '-c',
    `<< /ColorACSImageDict ${jpeg} /GrayACSImageDict ${jpeg} ` +
      `/ColorImageDict ${jpeg} /GrayImageDict ${jpeg} >> setdistillerparams`,
    '-f',
  ];
}

/** Rewrite `input` as `output` through pdfwrite with a settings profile; pages keep their orientation. */
export async function pdfWrite(
  input: string,
  output: string,
  ctx: EngineContext,
  { settings, summary, images }: PdfWriteOptions,
): Promise<void> {
  const { options, permits, interpreter } = await safeRun(ctx, input, output);
  const args = [
    '-q',
    '-dNOPAUSE',
    '-dBATCH',
    '-dSAFER',
    ...permits,
    ...interpreter,
    '-sDEVICE=pdfwrite',
    `-dPDFSETTINGS=${settings}`,
    // pdfwrite otherwise turns pages to follow their text direction.
    '-dAutoRotatePages=/None',
    // '%' in an output name is a page-number template to ghostscript.
    `-sOutputFile=${output.replaceAll('%', '%%')}`,
    ...(images ? imageArguments(images) : []),
    input,
  ];
  try {
    await runProcess(GHOSTSCRIPT.command, args, options);
  } catch (err) {
    throw ghostscriptFailure(err, ctx.signal, summary);
  }
}

/** The sRGB profile Debian's Ghostscript ships: the PDF/A output intent. */
export const SRGB_PROFILE = '/usr/share/color/icc/ghostscript/srgb.icc';

/**
 * The OutputIntent pdfwrite embeds (Ghostscript's PDFA_def.ps, reduced to RGB): the ICC profile
 * as a stream, an OutputIntent of subtype GTS_PDFA1 pointing at it, set on the catalog.
 */
function pdfaDefinition(iccProfile: string): string {
  const ps = (text: string) => `(${text.replace(/[\\()]/g, (c) => `\\${c}`)})`;
  return [
    '%!',
    `/ICCProfile ${ps(iccProfile)} def`,
    '[/_objdef {icc_PDFA} /type /stream /OBJ pdfmark',
    '[{icc_PDFA} << /N 3 >> /PUT pdfmark',
    '[{icc_PDFA} ICCProfile (r) file /PUT pdfmark',
    '[/_objdef {OutputIntent_PDFA} /type /dict /OBJ pdfmark',
    '[{OutputIntent_PDFA} << /Type /OutputIntent /S /GTS_PDFA1 /DestOutputProfile {icc_PDFA} ' +
      '/OutputConditionIdentifier (sRGB) /Info (sRGB IEC61966-2.1) >> /PUT pdfmark',
    '[{Catalog} << /OutputIntents [ {OutputIntent_PDFA} ] >> /PUT pdfmark',
    '',
  ].join('\n');
}

export interface PdfaOptions {
  /** PDF/A part: 1, 2 or 3 (conformance b). */
  part: number;
  /** A scratch file for the PostScript that declares the output intent. */
  definitionFile: string;
  summary: string;
}

/**
 * Rewrite a PDF as PDF/A-<part>b: fonts embedded (missing ones substituted and embedded), colours
 * converted to RGB under an sRGB OutputIntent, XMP with pdfaid written, transparency flattened
 * for part 1. What PDF/A cannot hold is dropped (PDFACompatibilityPolicy=1): document info
 * strings XMP cannot represent, JavaScript and other actions.
 */
export async function pdfToPdfa(
  input: string,
  output: string,
  ctx: EngineContext,
  { part, definitionFile, summary }: PdfaOptions,
): Promise<void> {
  await writeFile(definitionFile, pdfaDefinition(SRGB_PROFILE));
  const { options, permits, interpreter } = await safeRun(ctx, input, output, [SRGB_PROFILE, definitionFile]);
  const args = [
    '-q',
    '-dNOPAUSE',
    '-dBATCH',
    '-dSAFER',
    ...permits,
    ...interpreter,
    '-sDEVICE=pdfwrite',
    `-dPDFA=${part}`,
    '-dPDFACompatibilityPolicy=1',
    '-sColorConversionStrategy=RGB',
    '-sProcessColorModel=DeviceRGB',
    '-dEmbedAllFonts=true',
    '-dSubsetFonts=true',
    '-dAutoRotatePages=/None',
    `-sOutputFile=${output.replaceAll('%', '%%')}`,
    definitionFile,
    input,
  ];
  try {
    await runProcess(GHOSTSCRIPT.command, args, options);
  } catch (err) {
    throw ghostscriptFailure(err, ctx.signal, summary);
  }
}
