/** The data family: CSV/JSON/XLSX conversion, SRT/VTT conversion and the repair-csv tool. */
import type { Plugin } from '../../core/contract/index.js';
import { dataConvertPlugin } from './convert/index.js';
import { repairCsvPlugin } from './repair-csv/index.js';
import { subtitleConvertPlugin } from './subtitle-convert/index.js';

export const dataPlugins: Plugin[] = [dataConvertPlugin, subtitleConvertPlugin, repairCsvPlugin];
