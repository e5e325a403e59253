/** op=chunk's options are every reader family's (core/contract/document/options.ts). */
export { chunkOptions } from '../../../core/contract/document/options.js';
