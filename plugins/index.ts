/** The standard distribution: every plugin the server loads, listed explicitly. */
import type { Plugin } from '../core/contract/index.js';
import { cvPlugins } from './cv/index.js';
import { dataPlugins } from './data/index.js';
import { imagePlugins } from './image/index.js';
import pdfToMarkdown from './markdown/index.js';
import { mediaPlugins } from './media/index.js';
import { officePlugins } from './office/index.js';
import { pdfPlugins } from './pdf/index.js';
import { searchPlugins } from './search/index.js';

export const standardPlugins: Plugin[] = [...imagePlugins, ...mediaPlugins, ...pdfPlugins, pdfToMarkdown, ...searchPlugins, ...cvPlugins, ...dataPlugins, ...officePlugins];
export default standardPlugins;
