import { z } from 'zod';

/** pdf-to-docx takes no wire fields: running headers are stripped and page breaks left out. */
export const pdfToDocxOptions = z.object({});
