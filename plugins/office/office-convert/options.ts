import { z } from 'zod';
import { pdfaOption } from '../../../core/engines/pdfa.js';

export const officeConvertOptions = z.object({ pdfa: pdfaOption.optional() });
