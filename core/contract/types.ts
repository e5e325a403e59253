/** The SDK's types that its helpers share with index.ts (apart, so neither imports the other). */
import type { FormatId } from '../../schema/index.js';

export interface PluginInput {
  /** Absolute path of the input file, inside or beside the work dir; read-only. */
  path: string;
  format: FormatId;
  /** The client's file name (sanitised); useful for output names inside archives. */
  filename: string;
  bytes: number;
  /**
   * What acceptance's work measure read of this file (`WorkMeasure.measureWithFacts`: a media probe), for the run to
   * reuse instead of reading the file again. Only when the process that accepted the job runs it; data to validate
   * like any engine output, never a reason to skip a check.
   */
  facts?: InputFacts;
}

/** JSON data a work measure learnt of one input file, keyed by what it is (`ffprobe`). */
export type InputFacts = Readonly<Record<string, unknown>>;
