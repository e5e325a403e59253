/** EBU R128 loudness normalisation with ffmpeg's loudnorm filter, in two passes. */
import { PluginError } from '../../../core/contract/index.js';
import { z } from 'zod';

/** Integrated loudness target (spec), true-peak ceiling and loudness range, as loudnorm names them. */
export const TARGET = { integratedLufs: -16, truePeakDbtp: -1.5, loudnessRangeLu: 11 } as const;
const TARGET_ARGS = `I=${TARGET.integratedLufs}:TP=${TARGET.truePeakDbtp}:LRA=${TARGET.loudnessRangeLu}`;
// Below the EBU R128 absolute gate everything counts as silence.
const SILENCE_LUFS = -70;

export interface Measurement {
  integrated: number;
  truePeak: number;
  range: number;
  threshold: number;
  offset: number;
}

/** Pass 1: measure only, report as JSON on stderr. */
export const MEASURE_FILTER = `loudnorm=${TARGET_ARGS}:print_format=json`;

/** Pass 2: one linear gain from the measurement (dynamic compression only if the peak ceiling demands it). */
export function applyFilter(m: Measurement): string {
  return (
    `loudnorm=${TARGET_ARGS}:measured_I=${m.integrated}:measured_TP=${m.truePeak}:measured_LRA=${m.range}` +
    `:measured_thresh=${m.threshold}:offset=${m.offset}:linear=true:print_format=summary`
  );
}

// loudnorm prints "-inf" for silence, which Number() reads as NaN.
const level = z.string().transform(Number);
const reportSchema = z.object({
  input_i: level,
  input_tp: level,
  input_lra: level,
  input_thresh: level,
  target_offset: level,
});

/** The measurement from pass 1's stderr (the JSON block loudnorm prints last). */
export function parseMeasurement(stderr: string): Measurement {
  const json = stderr.slice(stderr.lastIndexOf('{'), stderr.lastIndexOf('}') + 1);
  let report: z.output<typeof reportSchema>;
  try {
    report = reportSchema.parse(JSON.parse(json));
  } catch (err) {
    throw new Error('loudnorm printed no measurement', { cause: err });
  }
  if (!(report.input_i > SILENCE_LUFS))
    throw new PluginError('The audio is silent, so there is no loudness to normalise');
  return {
    integrated: report.input_i,
    truePeak: report.input_tp,
    range: report.input_lra,
    threshold: report.input_thresh,
    offset: report.target_offset,
  };
}
