/**
 * The thumbnail family descriptor. One picture of one page or frame: the work does not grow with
 * the input's length, so a fixed deadline bounds it (an office document is cut to its first page).
 */
import type { Plugin } from '../../../core/contract/index.js';
import { FFMPEG, FFPROBE } from '../../../core/engines/ffmpeg.js';
import { SOFFICE } from '../../../core/engines/libreoffice.js';
import { PDFTOPPM } from '../../../core/engines/poppler.js';

export const thumbnailFamily = {
  // sharp (Apache-2.0, libvips LGPL-3.0-or-later), fluent-ffmpeg (MIT); the programs are declared by their engines.
  licenses: ['Apache-2.0', 'LGPL-3.0-or-later', 'MIT'],
  engines: [PDFTOPPM, FFMPEG, FFPROBE, SOFFICE],
  limits: { timeoutMs: 60_000, concurrency: 2, memoryMb: 1024 },
} satisfies Pick<Plugin, 'licenses' | 'engines' | 'limits'>;
