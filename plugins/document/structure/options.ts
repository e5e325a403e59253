/** op=structure's options are every reader family's (core/contract/document/options.ts). */
export { structureOptions } from '../../../core/contract/document/options.js';
