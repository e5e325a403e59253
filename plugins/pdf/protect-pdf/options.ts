import { z } from 'zod';
import { passwordField } from '../shared/options.js';

export const protectOptions = z.object({
  password: passwordField('Password needed to open the PDF, 1-128 characters.'),
});
