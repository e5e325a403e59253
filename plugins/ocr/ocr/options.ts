/** The ocr op's one option, `lang`, exactly as the wire contract states it (shared with every tool that OCRs). */
import { z } from 'zod';
import { ocrLanguageOption } from '../../../core/engines/tesseract.js';

export const ocrOptions = z.object({
  lang: ocrLanguageOption,
});
