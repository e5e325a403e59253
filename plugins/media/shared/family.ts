/**
 * What every media plugin declares: the licences of what it links, the engines it runs, its
 * default limits, and the work it is measured by (media seconds, probed at acceptance).
 */
import { scaledTimeout, type Plugin, type PluginLimits, type WorkMeasure } from '../../../core/contract/index.js';
import { FFMPEG, FFPROBE, probeDurationSec } from '../../../core/engines/ffmpeg.js';

/** The fixed part of every media deadline; the rest grows with the media (WORK_RATE in media.ts). */
export const DEADLINE_BASE_MS = 60_000;

/**
 * Media one job may carry (bounded work), all inputs together: 4 hours, measured by
 * ffprobe at acceptance. The run's own deadline follows the duration it probes (MediaRun).
 */
export const MAX_MEDIA_SECONDS = 4 * 3600;

const mediaWork: WorkMeasure = {
  unit: 'seconds',
  max: MAX_MEDIA_SECONDS,
  measure: (input, { signal, timeoutMs }) => probeDurationSec(input.path, { signal, timeoutMs, format: input.format }),
  // The deadline is a ceiling from the size; the tight one from the duration is the run's own (MediaRun probes).
  scalesDeadline: false,
};

/**
 * Manifest limits. The job timeout is known before probing, so it is a ceiling from the size
 * (a minute plus `secondsPerMegabyte`, at most 6 hours); the tight, duration-based deadline is
 * applied inside the run (MediaRun).
 */
export function mediaLimits(secondsPerMegabyte: number, concurrency: number): PluginLimits {
  return {
    timeoutMs: scaledTimeout({ baseMs: DEADLINE_BASE_MS, perMbMs: secondsPerMegabyte * 1000, maxMs: 6 * 3600_000 }),
    work: mediaWork,
    concurrency,
  };
}

export const mediaFamily = {
  // What it links: fluent-ffmpeg (MIT); ffmpeg itself is declared by its engine.
  licenses: ['MIT'],
  engines: [FFMPEG, FFPROBE],
  // Stream copies and light filters: 2 s per MB at most, two at once.
  limits: mediaLimits(2, 2),
} satisfies Pick<Plugin, 'licenses' | 'engines' | 'limits'>;
