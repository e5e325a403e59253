/** op=thumbnail: a PNG, WEBP or JPG picture of a PDF page, a video frame, an office document or an image. */
import { definePlugin, type Plugin } from '../../core/contract/index.js';
import { FFMPEG, FFPROBE } from '../../core/engines/ffmpeg.js';
import { SOFFICE } from '../../core/engines/libreoffice.js';
import { PDFTOPPM } from '../../core/engines/poppler.js';
import { thumbnailOptions } from './options.js';
import { IMAGE_INPUTS, OFFICE_INPUTS, THUMBNAIL_OUTPUTS, VIDEO_INPUTS, thumbnail } from './run.js';

export const thumbnailPlugin = definePlugin({
  id: 'thumbnail',
  kind: 'tool',
  op: 'thumbnail',
  title: 'Thumbnail of a PDF, image, video or office document',
  inputs: ['pdf', ...IMAGE_INPUTS, ...VIDEO_INPUTS, ...OFFICE_INPUTS],
  // `to` picks the picture's format, whatever the input (an exception to "ops keep the format").
  outputs: THUMBNAIL_OUTPUTS,
  options: thumbnailOptions,
  // Tool operations are Pro and up (the spec's plan table).
  plan: 'pro',
  // sharp (Apache-2.0, libvips LGPL-3.0-or-later), fluent-ffmpeg (MIT); the programs are declared by their engines.
  licenses: ['Apache-2.0', 'LGPL-3.0-or-later', 'MIT'],
  engines: [PDFTOPPM, FFMPEG, FFPROBE, SOFFICE],
  limits: { timeoutMs: 60_000, concurrency: 2, memoryMb: 1024 },
  run: thumbnail,
});

export const thumbnailPlugins: Plugin[] = [thumbnailPlugin];
