/** The SDK's types that its helpers share with index.ts (apart, so neither imports the other). */
import type { FormatId } from '../../schema/index.js';

export interface PluginInput {
  /** Absolute path of the input file, inside or beside the work dir; read-only. */
  path: string;
  format: FormatId;
  /** The client's file name (sanitised); useful for output names inside archives. */
  filename: string;
  bytes: number;
}
