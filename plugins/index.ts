/** The standard distribution: every plugin the server loads, listed explicitly. */
import type { Plugin } from '../core/contract/index.js';
import { siblingFile } from '../core/contract/modules.js';
import { cvPlugins } from './cv/index.js';
import { dataPlugins } from './data/index.js';
import { documentPlugins } from './document/index.js';
import { imagePlugins } from './image/index.js';
import { markdownPlugins } from './markdown/index.js';
import { mediaPlugins } from './media/index.js';
import { ocrPlugins } from './ocr/index.js';
import { officePlugins } from './office/index.js';
import { pdfPlugins } from './pdf/index.js';
import { redactPlugins } from './redact/index.js';
import { searchPlugins } from './search/index.js';
import { thumbnailPlugins } from './thumbnail/index.js';
import { transcribePlugins } from './transcribe/index.js';
import { webPlugins } from './web/index.js';

export const standardPlugins: Plugin[] = [
  ...imagePlugins,
  ...mediaPlugins,
  ...pdfPlugins,
  ...markdownPlugins,
  ...searchPlugins,
  ...cvPlugins,
  ...dataPlugins,
  ...documentPlugins,
  ...officePlugins,
  ...ocrPlugins,
  ...redactPlugins,
  ...transcribePlugins,
  ...webPlugins,
  ...thumbnailPlugins,
];

/**
 * The same distribution as module paths: sandbox processes import only the family of the plugin
 * they run, so a process running images never loads LibreOffice's or pdfjs's code.
 */
export const standardPluginModules: string[] = [
  'cv',
  'data',
  'document',
  'image',
  'markdown',
  'media',
  'ocr',
  'office',
  'pdf',
  'redact',
  'search',
  'thumbnail',
  'transcribe',
  'web',
].map((family) => siblingFile(`./${family}/index`, import.meta.url));
