/** Speech to text: the transcribe extraction tool. */
import type { Plugin } from '../../core/contract/index.js';
import { transcribePlugin } from './transcribe/index.js';

export const transcribePlugins: Plugin[] = [transcribePlugin];
