/** The media family on ffmpeg: audio and video conversions and the media tool ops. */
import type { Plugin } from '../../core/contract/index.js';
import { audioConvertPlugin } from './audio-convert/index.js';
import { mediaCleanMetadataPlugin } from './clean-metadata/index.js';
import { compressVideoPlugin } from './compress-video/index.js';
import { muteVideoPlugin } from './mute-video/index.js';
import { normalizeAudioPlugin } from './normalize-audio/index.js';
import { trimMediaPlugin } from './trim-media/index.js';
import { videoConvertPlugin } from './video-convert/index.js';

export const mediaPlugins: Plugin[] = [
  audioConvertPlugin,
  videoConvertPlugin,
  compressVideoPlugin,
  muteVideoPlugin,
  trimMediaPlugin,
  normalizeAudioPlugin,
  mediaCleanMetadataPlugin,
];
