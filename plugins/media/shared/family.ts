/**
 * What every media plugin declares: the licences of what it links, the engines it runs, its
 * default limits, and the work it is measured by (media seconds, probed at acceptance).
 */
import { z } from 'zod';
import {
  scaledTimeout,
  type Plugin,
  type PluginInput,
  type PluginLimits,
  type WorkMeasure,
} from '../../../core/contract/index.js';
import {
  FFMPEG,
  FFPROBE,
  PROBE_TIMEOUT_MS,
  durationOf,
  parseProbe,
  probeDurationSec,
  probeOutput,
  type MediaProbe,
} from '../../../core/engines/ffmpeg.js';

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
  // The run needs the whole probe (streams, frame size) that the duration comes from: it reuses this one.
  async measureWithFacts(input, { signal, timeoutMs }) {
    const options = { signal, timeoutMs: Math.min(timeoutMs, PROBE_TIMEOUT_MS), format: input.format };
    const output = await probeOutput(input.path, options);
    return {
      amount: durationOf(parseProbe(output), 'media'),
      facts: { [PROBE_FACTS]: { format: input.format, output } },
    };
  },
  // The deadline is a ceiling from the size; the tight one from the duration is the run's own (MediaRun probes).
  scalesDeadline: false,
};

/** Where a media measure leaves ffprobe's answer in PluginInput.facts, with the format it read the file as. */
const PROBE_FACTS = 'ffprobe';
const probeFactsSchema = z.object({ format: z.string(), output: z.unknown() });

/**
 * The probe acceptance made of this very input (PluginInput.facts), when it read the file as the format the run
 * reads it as; undefined otherwise (the run probes itself).
 */
export function acceptedProbe(input: PluginInput): MediaProbe | undefined {
  const facts = probeFactsSchema.safeParse(input.facts?.[PROBE_FACTS]);
  if (!facts.success || facts.data.format !== input.format) return undefined;
  try {
    return parseProbe(facts.data.output);
  } catch {
    return undefined;
  }
}

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
