/**
 * The image family's descriptor: what every image manifest links, and its default limits. The
 * work is measured in decoded megapixels, read from the file's header at acceptance (no decoding,
 * no sharp in the API process), and the deadline follows it.
 */
import { scaledTimeout, type Plugin, type PluginInput, type WorkMeasure } from '../../../core/contract/index.js';
import { MAX_INPUT_MEGAPIXELS, headerMegapixels } from './megapixels.js';

/** Image runs at once per worker; the libvips threads are shared out between them (engine.ts). */
export const IMAGE_RUNS_AT_ONCE = 2;

const byteScaledTimeout = scaledTimeout({ baseMs: 60_000, perMbMs: 1_000 });
/** A slow AVIF encode on one busy core: about a second a megapixel; twice that for margin. */
const PER_MEGAPIXEL_MS = 2_000;

/** Bounded by the pixel limit: a minute plus a second a MB, or 2 s a megapixel, covers slow AVIF encodes. */
function imageTimeoutMs(inputs: readonly PluginInput[], megapixels?: number): number {
  return Math.max(byteScaledTimeout(inputs), 60_000 + (megapixels ?? 0) * PER_MEGAPIXEL_MS);
}

/** Megapixels one job may carry: the decoder's own limit per input (a decompression bomb is refused at once). */
const imageWork: WorkMeasure = {
  unit: 'megapixels',
  max: MAX_INPUT_MEGAPIXELS,
  measure: (input) => headerMegapixels(input.path),
  readsOnly: true,
};

export const imageFamily = {
  // What it links: sharp (Apache-2.0) with libvips (LGPL-3.0-or-later), pdf-lib (MIT), heic-decode (ISC) with libheif
  // (LGPL-3.0), image-size (MIT).
  licenses: ['Apache-2.0', 'LGPL-3.0-or-later', 'MIT', 'ISC'],
  engines: [],
  limits: { timeoutMs: imageTimeoutMs, work: imageWork, concurrency: IMAGE_RUNS_AT_ONCE },
} satisfies Pick<Plugin, 'licenses' | 'engines' | 'limits'>;
