import { z } from 'zod';
import { pdfaOption } from '../../../core/engines/pdfa.js';

// A PDF "converted" to PDF says what to change: the PDF/A level is required.
export const pdfToPdfaOptions = z.object({ pdfa: pdfaOption });
