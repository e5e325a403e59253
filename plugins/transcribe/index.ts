/** Speech to text: the transcribe extraction tool. */
import type { Plugin } from '../../core/contract/index.js';
import { transcribePlugin } from './transcribe.js';

export {
  TRANSCRIBE_CREDIT_WEIGHT,
  TRANSCRIBE_LANGUAGES,
  transcribePlugin,
  type Segment,
  type TranscriptRow,
} from './transcribe.js';
export const transcribePlugins: Plugin[] = [transcribePlugin];
