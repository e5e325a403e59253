/**
 * The standard engine modules' requirements in one list, and the variable that overrides each
 * command's path (`<COMMAND>_PATH`): config reads exactly these variables at start-up.
 */
import type { EngineRequirement } from '../contract/index.js';
import { CHROMIUM } from './chromium.js';
import { FFMPEG, FFPROBE } from './ffmpeg.js';
import { GHOSTSCRIPT } from './ghostscript.js';
import { IMAGEMAGICK } from './imagemagick.js';
import { SOFFICE } from './libreoffice.js';
import { OCRMYPDF } from './ocrmypdf.js';
import { PANDOC } from './pandoc.js';
import { pathVariable } from './paths.js';
import { POCKETSPHINX } from './pocketsphinx.js';
import { PDFIMAGES, PDFTOPPM, PDFTOTEXT } from './poppler.js';
import { QPDF } from './qpdf.js';
import { TESSERACT } from './tesseract.js';

export const STANDARD_ENGINES: readonly EngineRequirement[] = [
  PDFTOTEXT,
  PDFTOPPM,
  PDFIMAGES,
  QPDF,
  GHOSTSCRIPT,
  TESSERACT,
  SOFFICE,
  PANDOC,
  FFMPEG,
  FFPROBE,
  IMAGEMAGICK,
  OCRMYPDF,
  POCKETSPHINX,
  CHROMIUM,
];

/** command -> environment variable, e.g. pdftotext -> PDFTOTEXT_PATH, gs -> GS_PATH. */
export const ENGINE_PATH_VARIABLES: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries(STANDARD_ENGINES.map((engine) => [engine.command, pathVariable(engine.command)])),
);
