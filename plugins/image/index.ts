/** The image family on sharp: conversions, image -> PDF and ICO, and the image tool ops (blur-faces on BlazeFace). */
import type { Plugin } from '../../core/contract/index.js';
import { cleanMetadataPlugin } from './clean-metadata.js';
import { removeBgPlugin } from './background.js';
import { compressPlugin } from './compress.js';
import { blurFacesPlugin } from './faces.js';
import { imageConvertPlugin } from './convert.js';
import { filterPlugins } from './filters.js';
import { imageToIcoPlugin } from './ico.js';
import { imageToPdfPlugin } from './pdf.js';
import { resizePlugin } from './resize.js';

export const imagePlugins: Plugin[] = [
  imageConvertPlugin,
  imageToPdfPlugin,
  imageToIcoPlugin,
  compressPlugin,
  resizePlugin,
  ...filterPlugins,
  cleanMetadataPlugin,
  blurFacesPlugin,
  removeBgPlugin,
];
