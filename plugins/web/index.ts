/** The web family on a warm Chromium: HTML and Markdown to PDF, rendered offline. */
import type { Plugin } from '../../core/contract/index.js';
import { htmlToPdfPlugin } from './html-to-pdf/index.js';
import { mdToPdfPlugin } from './md-to-pdf/index.js';

export const webPlugins: Plugin[] = [htmlToPdfPlugin, mdToPdfPlugin];
