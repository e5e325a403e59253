/** The thumbnail family: op=thumbnail. */
import type { Plugin } from '../../core/contract/index.js';
import { thumbnailPlugin } from './thumbnail/index.js';

export const thumbnailPlugins: Plugin[] = [thumbnailPlugin];
