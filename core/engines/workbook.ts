/**
 * XLSX workbooks read with ExcelJS (MIT), which inflates every part of the file into memory: the
 * ZIP guard (zip.ts) refuses a decompression bomb first. Run code only (ExcelJS is heavy).
 */
import ExcelJS from 'exceljs';
import { PluginError } from '../contract/index.js';
import { assertZipWithinLimits, type ZipLimits } from './zip.js';

/**
 * The workbook of an XLSX file within `limits`; PluginError(`limits.unreadable`) when ExcelJS
 * cannot read it. ExcelJS reads any ZIP (a DOCX, say) as a workbook without sheets: the caller checks.
 */
export async function readGuardedWorkbook(
  file: string,
  limits: ZipLimits & { unreadable: string },
): Promise<ExcelJS.Workbook> {
  await assertZipWithinLimits(file, limits);
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.readFile(file);
  } catch (err) {
    throw new PluginError(limits.unreadable, { cause: err });
  }
  return workbook;
}
