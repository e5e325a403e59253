import { z } from 'zod';
import { passwordField } from '../shared/options.js';

export const unlockOptions = z.object({ password: passwordField("The PDF's current password.") });
