import { z } from 'zod';
import { pageListField } from '../shared/options.js';

export const extractPagesOptions = z.object({
  pages: pageListField.describe('1-based pages and ranges to keep, e.g. "1-3, 5, 8-10".'),
});
