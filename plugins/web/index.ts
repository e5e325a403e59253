/** The web family on a warm Chromium: HTML and Markdown to PDF rendered offline, and web pages from their URL (Pro). */
import type { Plugin } from '../../core/contract/index.js';
import { htmlToPdfPlugin } from './html-to-pdf/index.js';
import { mdToPdfPlugin } from './md-to-pdf/index.js';
import { urlRenderPlugin } from './url-render/index.js';

export const webPlugins: Plugin[] = [htmlToPdfPlugin, mdToPdfPlugin, urlRenderPlugin];
