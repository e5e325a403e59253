/** The cv family: parsing CVs into contact, role, skills and experience fields. */
import type { Plugin } from '../../core/contract/index.js';
import { parseCvPlugin } from './parse-cv/index.js';

export const cvPlugins: Plugin[] = [parseCvPlugin];
