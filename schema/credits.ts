import { FORMATS, type FormatId } from './formats.js';
import { GB, MB } from './units.js';

/** Size tiers of the spec's credit table, largest first: a file over `above` bytes costs at least `credits`. */
const SIZE_TIERS: ReadonlyArray<{ above: number; credits: number }> = [
  { above: 2 * GB, credits: 100 },
  { above: 1 * GB, credits: 50 },
  { above: 500 * MB, credits: 25 },
  { above: 100 * MB, credits: 10 },
  { above: 10 * MB, credits: 3 },
];

/**
 * Credits for one job by the spec's class table: the larger of the input format's class
 * (image 1; audio, documents, SVG, HEIC/HEIF, CSV 3; video, PDF, Office 10) and the size tier.
 * `weight` multiplies the result (transcription is charged at a higher weight).
 */
export function creditCost(input: { format: FormatId; bytes: number }, weight = 1): number {
  const base = FORMATS[input.format].creditBase;
  const tier = SIZE_TIERS.find((t) => input.bytes > t.above)?.credits ?? 1;
  return Math.max(1, Math.max(base, tier) * weight);
}
