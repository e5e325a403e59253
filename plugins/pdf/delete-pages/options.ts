import { z } from 'zod';
import { pageListField } from '../shared/options.js';

export const deletePagesOptions = z.object({
  pages: pageListField.describe('1-based pages and ranges to remove, e.g. "1-3, 5, 8-10".'),
});
