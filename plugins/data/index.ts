/** The data family: CSV/JSON/XLSX conversion, SRT/VTT conversion and the repair-csv tool. */
import type { Plugin } from '../../core/contract/index.js';
import { dataConvertPlugin } from './convert.js';
import { repairCsvPlugin } from './repair.js';
import { subtitleConvertPlugin } from './subtitles.js';

export const dataPlugins: Plugin[] = [dataConvertPlugin, subtitleConvertPlugin, repairCsvPlugin];
