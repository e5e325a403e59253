/** Extraction tools that search inside files. */
import type { Plugin } from '../../core/contract/index.js';
import { fileSearchPlugin } from './file-search/index.js';

export const searchPlugins: Plugin[] = [fileSearchPlugin];
