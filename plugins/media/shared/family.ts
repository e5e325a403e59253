/**
 * What every media plugin declares: the licences of what it links, the engines it runs, its
 * default limits, and the work it is measured by (media seconds, read at acceptance).
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
  demuxersOf,
  durationOf,
  parseProbe,
  probeDurationSec,
  probeOutput,
  type MediaProbe,
} from '../../../core/engines/ffmpeg.js';
import { readMatroskaHeaders } from './matroska-headers.js';
import { readMovHeaders } from './mov-headers.js';

/** The fixed part of every media deadline; the rest grows with the media (WORK_RATE in media.ts). */
export const DEADLINE_BASE_MS = 60_000;

/**
 * Media one job may carry (bounded work), all inputs together: 4 hours, measured at acceptance (the file's headers,
 * else ffprobe). The run's own deadline follows the duration it is given or probes (MediaRun).
 */
export const MAX_MEDIA_SECONDS = 4 * 3600;

/**
 * What a run reads of its input's probe. `layout`: the streams' indices and types, the frame size and the duration,
 * which the in-process header reader gives as ffprobe would. `codecs`: also codec names, exact sample rates, bit
 * depths, tags or chapters, which only ffprobe gives: a run that reads them never gets the header reader's answer.
 */
export type ProbeNeeds = 'layout' | 'codecs';

/** The in-process header readers, by the one demuxer ffmpeg reads a format with. */
const HEADER_READERS: Readonly<Record<string, (filePath: string) => Promise<MediaProbe | undefined>>> = {
  mov: readMovHeaders,
  matroska: readMatroskaHeaders,
};

/**
 * The input's duration and streams read from its headers in this process, for the formats ffmpeg reads with its
 * mov demuxer (MP4, MOV, M4A...) or its matroska one (MKV, WEBM); undefined for other formats and for a file the
 * reader declines (ffprobe then).
 */
export async function readHeaders(input: Pick<PluginInput, 'path' | 'format'>): Promise<MediaProbe | undefined> {
  const demuxers = demuxersOf(input.format);
  const reader = demuxers.length === 1 ? HEADER_READERS[demuxers[0]!] : undefined;
  return reader?.(input.path);
}

const mediaWork: WorkMeasure = {
  unit: 'seconds',
  max: MAX_MEDIA_SECONDS,
  async measure(input, { signal, timeoutMs }) {
    const headers = await readHeaders(input);
    if (headers) return headers.durationSec;
    return probeDurationSec(input.path, { signal, timeoutMs, format: input.format });
  },
  // The run needs the streams (and the frame size) the duration comes from: it reuses what this read (acceptedProbe).
  async measureWithFacts(input, { signal, timeoutMs }) {
    const headers = await readHeaders(input);
    if (headers) {
      return { amount: headers.durationSec, facts: { [HEADER_FACTS]: { format: input.format, probe: headers } } };
    }
    const options = { signal, timeoutMs: Math.min(timeoutMs, PROBE_TIMEOUT_MS), format: input.format };
    const output = await probeOutput(input.path, options);
    return {
      amount: durationOf(parseProbe(output), 'media'),
      facts: { [PROBE_FACTS]: { format: input.format, output } },
    };
  },
  // The deadline is a ceiling from the size; the tight one from the duration is the run's own (MediaRun probes).
  scalesDeadline: false,
  // Headers read here, or ffprobe's JSON on its stdout.
  readsOnly: true,
};

/**
 * Where a media measure leaves what it read in PluginInput.facts, keyed by the reader that read it, with the format
 * it read the file as: ffprobe's JSON answer, or the header reader's MediaProbe.
 */
const PROBE_FACTS = 'ffprobe';
const HEADER_FACTS = 'headers';
const probeFactsSchema = z.object({ format: z.string(), output: z.unknown() });
const count = z.number().int().nonnegative();
const headerFactsSchema = z.object({
  format: z.string(),
  probe: z.object({
    formatName: z.string(),
    durationSec: z.number().positive(),
    tags: z.record(z.string(), z.string()),
    streams: z.array(
      z.object({
        index: count,
        type: z.enum(['video', 'audio', 'subtitle', 'data']),
        codec: z.undefined(),
        width: count.optional(),
        height: count.optional(),
        sampleRate: z.number().positive().optional(),
        channels: count.optional(),
        bitsPerRawSample: z.undefined(),
        durationSec: z.number().nonnegative().optional(),
        frameCount: count.optional(),
        attachedPicture: z.literal(false),
        tags: z.record(z.string(), z.string()),
      }),
    ),
    chapters: z.array(z.never()),
  }),
});

/**
 * What acceptance read of this very input (PluginInput.facts), when it read the file as the format the run reads it
 * as and it tells what the run `needs`: ffprobe's answer always, the header reader's for a `layout` run only.
 * Undefined otherwise (the run reads the file itself).
 */
export function acceptedProbe(input: PluginInput, needs: ProbeNeeds): MediaProbe | undefined {
  const headers = headerFactsSchema.safeParse(input.facts?.[HEADER_FACTS]);
  if (headers.success && headers.data.format === input.format) {
    // Checked field by field above; absent and undefined fields are alike to every reader of a MediaProbe.
    return needs === 'layout' ? (headers.data.probe as MediaProbe) : undefined;
  }
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
