/** The office family: conversions on LibreOffice (and pandoc for EPUB), and repair-office. */
import type { Plugin } from '../../core/contract/index.js';
import { officeConvertPlugin } from './office-convert/index.js';
import { repairOfficePlugin } from './repair-office/index.js';

export const officePlugins: Plugin[] = [officeConvertPlugin, repairOfficePlugin];
