/** Headings of a PDF without an outline, by size, weight and spacing, on the smallest inputs that show them. */
import { describe, expect, it } from 'vitest';
import { run } from '../../testing/runs.js';
import { analyseStyle, documentBlocks, type FlowItem } from './blocks.js';
import { buildLines } from './lines.js';

/** A line as [baseline, runs as [x, text]], at a size (10 pt unless given) and bold or not. */
type LineSpec = { baseline: number; runs: [number, string][]; size?: number; bold?: boolean };

function headingsOf(lines: LineSpec[]): string[] {
  const items: FlowItem[] = lines.map(({ baseline, runs, size = 10, bold = false }) => ({
    line: buildLines(runs.map(([x, text]) => ({ ...run(text, x, baseline, size), bold })))[0]!,
  }));
  const style = analyseStyle([items.flatMap((item) => ('line' in item ? [item.line] : []))]);
  return documentBlocks([{ page: 1, items }], style).flatMap((b) => (b.kind === 'heading' ? [b.text] : []));
}

/** Body text at 12 pt spacing from a baseline, one line per text. */
const body = (from: number, x: number, ...texts: string[]): LineSpec[] =>
  texts.map((text, i) => ({ baseline: from + 12 * i, runs: [[x, text]] }));

describe('headings without an outline', () => {
  it('bold option names at the body line spacing, their descriptions hanging below, are not headings', () => {
    // A man page printed by a browser: each option's name on a line of its own, bold, at the body's size, its
    // description indented under it, no space between them; the section title is larger.
    const headings = headingsOf([
      { baseline: 60, runs: [[40, 'DESCRIPTION']], size: 14, bold: true },
      ...body(84, 80, 'List information about the files in the current directory by default.'),
      { baseline: 96, runs: [[80, '-A, --almost-all']], bold: true },
      ...body(108, 120, 'do not list implied . and ..'),
      { baseline: 120, runs: [[80, '--author']], bold: true },
      ...body(132, 120, 'with -l, print the author of each file'),
      { baseline: 144, runs: [[80, '-b, --escape']], bold: true },
      ...body(156, 120, 'print C-style escapes for nongraphic characters', 'in the listing of each entry'),
      { baseline: 180, runs: [[80, '--block-size=SIZE']], bold: true },
      ...body(192, 120, 'with -l, scale sizes by SIZE when printing them'),
      // A bold title at body size with a paragraph's space above it is a heading.
      { baseline: 222, runs: [[40, 'Exit status']], bold: true },
      ...body(234, 80, 'The command exits with zero when all went well and with two on serious trouble.'),
    ]);
    expect(headings).toEqual(['DESCRIPTION', 'Exit status']);
  });

  it('the tail of a bold code block or of a long paragraph set larger than the body is not a heading', () => {
    // A title in each style, so that both styles are heading styles of the document.
    const headings = headingsOf([
      { baseline: 36, runs: [[72, 'Building']], bold: true },
      ...body(60, 72, 'Some text of the body runs over a few lines here,', 'and a listing follows it below:'),
      // A listing in bold at the body size, set off by space: its last lines are not a title of two lines.
      ...['SUBDIRS = src/devices/grolbp \\', 'src/devices/grotty \\', 'src/roff/groff \\', 'src/preproc/eqn'].map(
        (text, i): LineSpec => ({ baseline: 100 + 12 * i, runs: [[96, text]], bold: true }),
      ),
      ...body(172, 72, 'and the text of the body goes on after the listing,', 'down to the end of the page.'),
      { baseline: 196, runs: [[72, 'A quotation']], size: 12 },
      ...body(210, 72, 'The lines below are quoted from a novel.'),
      // A quotation set larger than the body over five lines: its last three lines are no heading either.
      ...['It was the best of times,', 'it was the worst of times,', 'it was the age of wisdom,'].map(
        (text, i): LineSpec => ({ baseline: 228 + 14 * i, runs: [[72, text]], size: 12 }),
      ),
      ...['it was the age of', 'foolishness, it was.'].map(
        (text, i): LineSpec => ({ baseline: 270 + 14 * i, runs: [[72, text]], size: 12 }),
      ),
      ...body(314, 72, 'The body text goes on below the quotation and ends the page here.'),
    ]);
    expect(headings).toEqual(['Building', 'A quotation']);
  });

  it('a bold line of a table of contents (a title and its page number apart) is not a heading', () => {
    const headings = headingsOf([
      { baseline: 60, runs: [[72, 'Contents']], size: 16, bold: true },
      {
        baseline: 90,
        runs: [
          [72, '1 Installation of the class'],
          [500, '3'],
        ],
        bold: true,
      },
      ...body(102, 84, '1.1 Requirements'),
      {
        baseline: 126,
        runs: [
          [72, '2 Using the class'],
          [500, '4'],
        ],
        bold: true,
      },
      ...body(138, 84, '2.1 Options'),
      ...body(170, 72, 'Body text of the document starts here and runs on for a while.'),
    ]);
    expect(headings).toEqual(['Contents']);
  });

  it('a column of commands set larger than the body, one under the other with nothing between, is not headings', () => {
    const headings = headingsOf([
      { baseline: 60, runs: [[72, 'Titling commands']], size: 11 },
      ...body(80, 72, 'The class defines the commands below for the pages that open the thesis.'),
      ...['\\maketitlepage', '\\fieldofstudy{}', '\\dualmajor{}{}'].map(
        (text, i): LineSpec => ({ baseline: 110 + 27 * i, runs: [[110, text]], size: 11 }),
      ),
      ...body(200, 72, 'Each of them is used once, before the text of the thesis starts.'),
    ]);
    expect(headings).toEqual(['Titling commands']);
  });

  it('a bold command indented inside the body with space around it is not a heading; a centred bold title is', () => {
    const headings = headingsOf([
      { baseline: 40, runs: [[72, 'Building']], bold: true },
      ...body(64, 72, 'From a checkout of the repository, you should first invoke this', 'script to set things up:'),
      { baseline: 104, runs: [[97, '$ ./bootstrap']], bold: true },
      ...body(130, 72, 'This will fetch the modules and write the configure script for you,', 'once and for all.'),
      { baseline: 174, runs: [[230, 'Notes']], bold: true },
      ...body(198, 72, 'A build tree outside of the source tree works the same way as one in it.'),
    ]);
    expect(headings).toEqual(['Building', 'Notes']);
  });
});
