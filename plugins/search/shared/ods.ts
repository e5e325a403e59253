/** The non-empty cells of an OpenDocument spreadsheet's content.xml, with A1-style addresses. */
import { OPEN_DOCUMENT, attribute, xmlTokens } from './xml.js';

export interface SheetCell {
  sheet: string;
  /** "B4". */
  address: string;
  text: string;
}

/**
 * Most repetitions of one cell that are searched. Files repeat empty cells to the sheet's edge
 * (a million rows); a repeated cell with text is rare, and a hostile repeat count must not
 * keep the worker busy.
 */
export const MAX_CELL_REPEAT = 1000;

export function columnName(index: number): string {
  let name = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

const repeatOf = (attributes: string, name: string) => Math.max(1, Number(attribute(attributes, name) ?? 1) || 1);

export function* spreadsheetCells(xml: string): Generator<SheetCell> {
  let sheet = '';
  let row = 0;
  let rowRepeat = 1;
  let column = 0;
  let cell: { repeat: number; paragraphs: string[] } | undefined;
  let paragraphDepth = 0;

  for (const token of xmlTokens(xml)) {
    if (token.type === 'open') {
      switch (token.name) {
        case 'table:table':
          sheet = attribute(token.attributes, 'table:name') ?? '';
          row = 0;
          break;
        case 'table:table-row':
          rowRepeat = repeatOf(token.attributes, 'table:number-rows-repeated');
          column = 0;
          if (token.selfClosing) row += rowRepeat;
          break;
        case 'table:table-cell':
        case 'table:covered-table-cell': {
          const repeat = repeatOf(token.attributes, 'table:number-columns-repeated');
          if (token.selfClosing) column += repeat;
          else cell = { repeat, paragraphs: [] };
          break;
        }
        default:
          if (cell && OPEN_DOCUMENT.paragraphs.has(token.name)) {
            if (!token.selfClosing) {
              cell.paragraphs.push('');
              paragraphDepth += 1;
            }
          } else if (cell && paragraphDepth > 0 && token.selfClosing) {
            const chars = OPEN_DOCUMENT.characters(token.name, token.attributes);
            if (chars !== undefined) cell.paragraphs[cell.paragraphs.length - 1] += chars;
          }
      }
    } else if (token.type === 'close') {
      if (token.name === 'table:table-row') row += rowRepeat;
      else if ((token.name === 'table:table-cell' || token.name === 'table:covered-table-cell') && cell) {
        const text = cell.paragraphs.join('\n');
        if (/\S/.test(text)) {
          const rows = Math.min(rowRepeat, MAX_CELL_REPEAT);
          const columns = Math.min(cell.repeat, Math.max(1, Math.floor(MAX_CELL_REPEAT / rows)));
          for (let r = 0; r < rows; r++) {
            for (let c = 0; c < columns; c++) yield { sheet, address: `${columnName(column + c)}${row + r + 1}`, text };
          }
        }
        column += cell.repeat;
        cell = undefined;
        paragraphDepth = 0;
      } else if (cell && OPEN_DOCUMENT.paragraphs.has(token.name)) paragraphDepth = Math.max(0, paragraphDepth - 1);
    } else if (cell && paragraphDepth > 0) {
      cell.paragraphs[cell.paragraphs.length - 1] += token.text;
    }
  }
}
