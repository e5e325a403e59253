/** Reading order of two-column pages, on runs laid out as LaTeX's two-column classes set them. */
import { describe, expect, it } from 'vitest';
import { readingOrder } from './columns.js';
import { buildLines } from './lines.js';
import type { TextRun } from './types.js';

const run = (text: string, x0: number, x1: number, baseline: number, size = 10): TextRun => ({
  text,
  x0,
  x1,
  baseline,
  size,
  bold: false,
});

/** Two columns of `rows` lines each, `gap` points apart, the right column's baselines offset by `shift`. */
function twoColumnPage(gap: number, rows: number, shift = 0): TextRun[] {
  const [left, width] = [56.7, 236];
  const runs: TextRun[] = [];
  for (let i = 0; i < rows; i++) {
    runs.push(run(`left line ${i} of prose set across the whole column width here`, left, left + width, 80 + 12 * i));
    const x0 = left + width + gap;
    runs.push(run(`right line ${i} of prose set across the whole column width`, x0, x0 + width, 80 + 12 * i + shift));
  }
  return runs;
}

const order = (runs: TextRun[]) =>
  readingOrder(buildLines(runs), []).flatMap((flow) => flow.lines.map((line) => line.text.split(' ').slice(0, 3)));

describe('two-column reading order', () => {
  it('reads the left column, then the right, when the columns are only an em apart (LaTeX columnsep 10 pt)', () => {
    for (const shift of [0, 5]) {
      const lines = order(twoColumnPage(9.9, 30, shift)).map((words) => words.join(' '));
      expect(lines.slice(0, 30)).toEqual(Array.from({ length: 30 }, (_, i) => `left line ${i}`));
      expect(lines.slice(30)).toEqual(Array.from({ length: 30 }, (_, i) => `right line ${i}`));
    }
  });

  it('reads a table across the page as one column: its rows are cut into cells, not lines of two columns', () => {
    // A continued table alone on its page (a browser print): a wide free strip between its third and
    // fourth columns, and words in cells on either side that fill each side's width.
    const runs: TextRun[] = [];
    for (let i = 0; i < 30; i++) {
      const y = 80 + 14 * i;
      runs.push(run(`Juniper Flats ${i}`, 57, 125, y), run('Coastal', 190, 225, y), run(String(10 + i), 290, 300, y));
      runs.push(run(`${i}.25`, 350, 372, y), run('Compliant', 445, 490, y));
    }
    const flows = readingOrder(buildLines(runs), []);
    expect(flows).toHaveLength(1);
    expect(flows[0]!.lines[0]!.text.split(/\s+/)).toEqual([
      'Juniper',
      'Flats',
      '0',
      'Coastal',
      '10',
      '0.25',
      'Compliant',
    ]);
  });

  it('keeps a page of one column whose runs leave a wide word gap here and there in one column', () => {
    // Runs of one line split at a stretched space, at the same place on a few lines.
    const runs: TextRun[] = [];
    for (let i = 0; i < 30; i++) {
      const baseline = 80 + 12 * i;
      if (i % 6 === 0) {
        runs.push(run(`line ${i} first half of a justified line`, 56.7, 290, baseline));
        runs.push(run('and its second half', 297, 538.6, baseline));
      } else runs.push(run(`line ${i} set in one run across the page`, 56.7, 538.6, baseline));
    }
    const lines = order(runs).map((words) => words.slice(0, 2).join(' '));
    expect(lines).toEqual(Array.from({ length: 30 }, (_, i) => `line ${i}`));
  });

  it('reads a one-column page with a two-column table as one column: short lines have nothing beside them', () => {
    // An office suite's export of an HTML page (12 pt): headings and paragraphs' last lines end left of the
    // table's free strip, and the table's long names fill its first column; no column of prose stands beside them.
    const cells: [string, number, number, number][] = [
      ['Extensible class instrumentation.', 71.9, 257.4, 106],
      ['The extension package is provided for the benefit of integration with other object', 71.9, 529.8, 153],
      ['management packages, which already perform their own instrumentation. It is not', 71.9, 538.1, 178.4],
      ['intended for general use.', 71.9, 214.3, 203.7],
      ['For examples of how the instrumentation extension is used, see the example', 71.9, 504.5, 250.7],
      ['Attribute Instrumentation.', 71.9, 221, 276.1],
      ['API Reference', 100.4, 238.2, 329.5],
      ['Object Name', 130, 197.6, 369.1],
      ['Description', 381.7, 440.9, 369.1],
      ['Extends InstrumentationFactory with', 293.1, 517.5, 399.8],
      ['ExtendedInstrumentationRe', 94.2, 228.8, 407.2],
      ['additional bookkeeping, to accommodate', 293.1, 491, 414.6],
      ['gistry', 94.2, 121.5, 421],
      ['multiple types of class managers.', 293.1, 452.6, 428.4],
      ['An extensible sequence of callables which return', 293.1, 528.2, 459.2],
      ['instrumentation_finders', 94.2, 208.8, 466.1],
      ['instrumentation implementations', 293.1, 451.3, 473],
      ['INSTRUMENTATION_M', 94.2, 225.5, 503.7],
      ['Attribute, elects custom instrumentation when', 293.1, 514.6, 503.7],
      ['ANAGER', 94.2, 144.2, 517.5],
      ['present on a mapped class.', 293.1, 421.4, 517.5],
      ['InstrumentationFactory', 94.2, 206.7, 548.3],
      ['Factory for new ClassManager instances.', 293.1, 491.2, 548.3],
      ['sqlalchemy.ext.instrumentation.INSTRUMENTATION_MANAGER =', 64.3, 432.8, 589],
    ];
    const flows = readingOrder(
      buildLines(cells.map(([text, x0, x1, baseline]) => run(text, x0, x1, baseline, 12))),
      [],
    );
    expect(flows).toHaveLength(1);
  });

  it('reads a one-column page with a table of long names as one column: a name alone is no line of prose', () => {
    // Celery's changelog as LibreOffice exports it (12 pt): a table of settings under a bullet, each cell one
    // long name (wrapped anywhere when too wide), centred in its row, so the two columns share no baseline.
    const runs: TextRun[] = [
      run('• The following deprecated settings has been removed (as scheduled by', 100.6, 535.5, 189.6, 12),
      run('the Celery Deprecation Time-line):', 114.8, 317.9, 206.9, 12),
      { ...run('Setting name', 185.8, 271.2, 239.8, 12), bold: true },
      { ...run('Replace with', 399.6, 481.3, 239.8, 12), bold: true },
      run('CELERY_AMQP_CONSUMER_QU', 138.7, 311.8, 274.1, 12),
      run('CELERY_QUEUES', 366.1, 457.6, 282.8, 12),
      run('EUES', 138.7, 166.9, 291.5, 12),
      run('CELERY_DEFAULT_EXCHAN', 366.1, 511.7, 325.8, 12),
      run('CELERY_AMQP_EXCHANGE', 138.7, 284.4, 334.4, 12),
      run('GE', 366.1, 381.3, 343.1, 12),
      run('CELERY_DEFAULT_EXCHAN', 366.1, 511.7, 377.4, 12),
      run('CELERY_AMQP_EXCHANGE_TYPE', 138.7, 316.0, 386.1, 12),
      run('GE_TYPE', 366.1, 413.0, 394.8, 12),
      run('CELERY_AMQP_CONSUMER_RO', 138.7, 310.4, 429.1, 12),
      run('CELERY_QUEUES', 366.1, 457.6, 437.7, 12),
      run('UTING_KEY', 138.7, 200.7, 446.4, 12),
      run('CELERY_AMQP_PUBLISHER_ROU', 138.7, 316.4, 480.7, 12),
      run('CELERY_DEFAULT_ROUTIN', 366.1, 510.7, 480.7, 12),
      run('TING_KEY', 138.7, 192.1, 498.1, 12),
      run('G_KEY', 366.1, 400.0, 498.1, 12),
      run('• The celery.task.rest module has been removed, use celery.task.http', 100.6, 505.1, 531.0, 12),
      run('instead (as scheduled by the Celery Deprecation Time-line).', 114.8, 468.0, 548.3, 12),
    ];
    const flows = readingOrder(buildLines(runs), []);
    // One flow, top to bottom: each setting beside its replacement, not all settings, then all replacements.
    expect(flows).toHaveLength(1);
    const texts = flows[0]!.lines.map((line) => line.text);
    expect(texts.indexOf('GE_TYPE')).toBe(texts.indexOf('CELERY_AMQP_EXCHANGE_TYPE') + 1);
  });

  it('reads a method table as one column: names in several fonts, a row apart, are no lines of prose', () => {
    // pydicom's method summary as LibreOffice exports it (12 pt, no rules): a name set in pieces ("compare(" +
    // "other[, " + "context])") beside its description, rows 31 points apart, a two-line description centred on
    // its name. Read run by run, a name reads as three words; and no name has a line of its side just above or
    // below it, as a column's line of prose does.
    const name = (pieces: string[], x1: number, baseline: number): TextRun[] => {
      const width = (x1 - 86.6) / pieces.join('').length;
      let x = 86.6;
      return pieces.map((piece) => {
        const out = run(piece, x, x + width * piece.length, baseline, 12);
        x += width * piece.length;
        return out;
      });
    };
    const runs: TextRun[] = [
      ...name(['copy_sign(', 'other[, ', 'context])'], 233.3, 462.6),
      run('Return a copy of the first operand with the sign set to be the same', 237.6, 552.7, 456.2, 12),
      run('as the sign of the second operand.', 237.6, 399.9, 470.0, 12),
      ...name(['compare(', 'other[, ', 'context])'], 218.9, 493.9),
      run('Compare self to other and return the result of the comparison.', 237.6, 540.8, 493.9, 12),
      ...name(['fma(', 'other, third[, ', 'context])'], 218.8, 525.6),
      run('Fused multiply-add of the operands, rounded once at the end.', 237.6, 534.2, 525.6, 12),
      ...name(['max_mag(', 'other[, ', 'context])'], 218.9, 557.3),
      run('Similar to the max() method, but the comparison is done on values.', 237.6, 545.4, 557.3, 12),
      ...name(['min_mag(', 'other[, ', 'context])'], 218.9, 589.0),
      run('Similar to the min() method, but the comparison is done on values.', 237.6, 545.4, 589.0, 12),
      ...name(['is_normal(', '[context])'], 202.7, 620.7),
      run('Return True if the argument is a normal finite non-zero number.', 237.6, 542.1, 620.7, 12),
    ];
    const flows = readingOrder(buildLines(runs), []);
    expect(flows).toHaveLength(1);
    const texts = flows[0]!.lines.map((line) => line.text);
    expect(texts.findIndex((text) => text.startsWith('compare(other'))).toBeLessThan(
      texts.findIndex((text) => text.startsWith('fma(other')),
    );
    expect(texts.find((text) => text.startsWith('fma('))).toContain('Fused multiply-add');
  });

  it('reads three columns one after the other, and each set of columns on a page in its own measure', () => {
    // Three columns of 160 pt, 12 pt apart; then, below, two columns of 250 pt.
    const runs: TextRun[] = [];
    for (let i = 0; i < 20; i++)
      for (const [c, x0] of [56.7, 228.7, 400.7].entries())
        runs.push(run(`col${c} line ${i} of prose in a narrow column`, x0, x0 + 160, 80 + 12 * i));
    for (let i = 0; i < 15; i++)
      for (const [c, x0] of [56.7, 318.7].entries())
        runs.push(run(`two${c} line ${i} of prose set in a wider column here`, x0, x0 + 250, 340 + 12 * i));
    const lines = order(runs).map((words) => words.slice(0, 3).join(' '));
    expect(lines).toEqual([
      ...[0, 1, 2].flatMap((c) => Array.from({ length: 20 }, (_, i) => `col${c} line ${i}`)),
      ...[0, 1].flatMap((c) => Array.from({ length: 15 }, (_, i) => `two${c} line ${i}`)),
    ]);
  });

  it('reads a chart of single glyphs in rows, not as columns (a font table is not prose)', () => {
    const glyphs = 'ABCDEFGHIJKLMNOP';
    const runs: TextRun[] = [];
    for (let row = 0; row < 16; row++)
      for (const [c, glyph] of [...glyphs].entries())
        runs.push(run(c === 8 ? ` ${glyph}` : glyph, 130 + 20 * c + (c >= 8 ? 12 : 0), 136 + 20 * c, 100 + 12 * row));
    const flows = readingOrder(buildLines(runs), []);
    expect(flows).toHaveLength(1);
    expect(flows[0]!.lines[0]!.text).toBe([...glyphs].join(' '));
  });

  it("keeps TeX's lowered E on its line when the other column's baselines sit a few points higher", () => {
    // ltubguid (TUGboat): the right column's baselines 4 pt above the left's; "BibTEX" sets its E 1.8 pt low.
    const runs = twoColumnPage(9.9, 20, -4).filter((r) => !(r.baseline === 80 + 12 * 5 && r.x0 < 100));
    runs.push(run('left line 5 use BibT', 56.7, 150, 140), run('E', 149.5, 156.3, 141.8));
    runs.push(run('X and the rest of the column line', 155.8, 292.7, 140));
    const lines = readingOrder(buildLines(runs), []).flatMap((flow) => flow.lines.map((line) => line.text));
    expect(lines[5]).toBe('left line 5 use BibTEX and the rest of the column line');
    expect(lines).not.toContain('E');
    expect(lines).toHaveLength(40);
  });
});
