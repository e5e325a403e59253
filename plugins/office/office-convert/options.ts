/**
 * office-convert's options: the ones users know from Gotenberg's LibreOffice route (docs/OFFICE-OPTIONS.md).
 * Every PDF option but `password` applies to `to=pdf` only; the run refuses them for other targets.
 */
import { z } from 'zod';
import { parsePageRanges } from '../../../core/contract/page-ranges.js';
import { pdfaOption } from '../../../core/engines/pdfa.js';

const PASSWORD_RULE = '1 to 128 characters';
/** The resolutions LibreOffice's PDF export offers. */
const IMAGE_RESOLUTIONS = [75, 150, 300, 600, 1200];
const METADATA_KEYS = ['title', 'author', 'subject', 'keywords'] as const;

const pageRangesField = z
  .string()
  .max(2000, 'must be at most 2000 characters')
  .superRefine((text, ctx) => {
    const parsed = parsePageRanges(text);
    if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.error });
  })
  .describe('Pages of the PDF to keep, 1-based numbers and ranges such as 1-3, 5, 8-10 (to=pdf).');

const metadataField = z
  .strictObject(
    {
      title: z.string().max(1000).optional(),
      author: z.string().max(1000).optional(),
      subject: z.string().max(1000).optional(),
      keywords: z.array(z.string().max(200)).max(100).optional(),
    },
    { error: `must be a JSON object with the keys ${METADATA_KEYS.join(', ')}` },
  )
  .describe(
    'Document properties of the PDF as JSON: {"title":"...","author":"...","subject":"...","keywords":["a","b"]} ' +
      '(keywords a list of strings); written to the Info dictionary and the XMP (to=pdf).',
  );

export const officeConvertOptions = z.object({
  pdfa: pdfaOption.optional(),
  pdfua: z
    .boolean()
    .default(false)
    .describe('Tagged, accessible PDF declaring PDF/UA-1 (pdfuaid:part in its XMP); may be combined with pdfa.'),
  landscape: z.boolean().default(false).describe('Turn every page to landscape (documents and spreadsheets).'),
  pageRanges: pageRangesField.optional(),
  singlePageSheets: z.boolean().default(false).describe('Each sheet of a spreadsheet on one page (to=pdf).'),
  exportFormFields: z
    .boolean()
    .default(true)
    .describe('Form fields of the document become fillable PDF form fields (default true); false draws them as text.'),
  flatten: z
    .boolean()
    .default(false)
    .describe('Flatten the PDF: form fields and annotations are drawn into the pages and can no longer be edited.'),
  password: z
    .string()
    .min(1, `must be ${PASSWORD_RULE}`)
    .max(128, `must be ${PASSWORD_RULE}`)
    .optional()
    .meta({
      description:
        'Opens an encrypted DOCX, XLSX, PPTX, DOC, XLS, PPT or ODF file, 1-128 characters; used for this job only, ' +
        'never stored or logged.',
      secret: true,
    }),
  quality: z
    .number()
    .int('must be a whole number')
    .min(10, 'must be 10 to 95')
    .max(95, 'must be 10 to 95')
    .default(90)
    .describe('JPEG quality of the images in the PDF, 10 to 95 (default 90) (to=pdf).'),
  maxImageResolution: z
    .number()
    .int('must be a whole number')
    .refine((dpi) => IMAGE_RESOLUTIONS.includes(dpi), `must be one of ${IMAGE_RESOLUTIONS.join(', ')}`)
    .optional()
    .describe('Downsample images above this resolution, in DPI: 75, 150, 300, 600 or 1200 (to=pdf).'),
  losslessImageCompression: z
    .boolean()
    .default(false)
    .describe('Compress images losslessly (PNG-like) instead of JPEG (to=pdf).'),
  metadata: metadataField.optional(),
  comments: z
    .enum(['none', 'margin'], { error: 'must be none or margin' })
    .default('none')
    .describe(
      'Word and LibreOffice comments: none (default) leaves them out; margin exports each as a PDF comment ' +
        'annotation at its anchor, which PDF viewers show beside the page (to=pdf).',
    ),
  trackedChanges: z
    .enum(['final', 'markup'], { error: 'must be final or markup' })
    .default('final')
    .describe(
      'Tracked changes: final (default) shows the document as if every change were accepted; markup shows ' +
        'insertions and deletions marked, deletions struck through (to=pdf).',
    ),
  exportHiddenSlides: z.boolean().default(false).describe('Include hidden slides of a presentation (to=pdf).'),
});
export type OfficeConvertOptions = z.output<typeof officeConvertOptions>;
