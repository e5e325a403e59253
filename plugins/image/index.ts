/** The image family on sharp: conversions, image -> PDF and ICO, and the image tool ops (blur-faces on BlazeFace). */
import type { Plugin } from '../../core/contract/index.js';
import { blurFacesPlugin } from './blur-faces/index.js';
import { cleanMetadataPlugin } from './clean-metadata/index.js';
import { compressPlugin } from './compress/index.js';
import { imageConvertPlugin } from './convert/index.js';
import { filterPlugins } from './filters/index.js';
import { removeBgPlugin } from './remove-bg/index.js';
import { resizePlugin } from './resize/index.js';
import { imageToIcoPlugin } from './to-ico/index.js';
import { imageToPdfPlugin } from './to-pdf/index.js';

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
