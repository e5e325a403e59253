/** The document family: office, web and spreadsheet files as data (structure, chunks, renderings). */
import type { Plugin } from '../../core/contract/index.js';
import { documentChunkPlugin } from './chunk/index.js';
import { documentRenderPlugin } from './render/index.js';
import { documentStructurePlugin } from './structure/index.js';

export const documentPlugins: Plugin[] = [documentStructurePlugin, documentChunkPlugin, documentRenderPlugin];
