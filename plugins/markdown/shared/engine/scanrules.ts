/**
 * The rules drawn on a scanned page, found in its pixels: a text PDF hands the engine its drawn lines, a scan only
 * an image, so a ruled table on a scan had no rules and its cells were guessed from word gaps (with the rules
 * read as "|" among the words). Long straight runs of dark pixels are rules; letters are never that long.
 */
import type { Rule, ScanImage } from './types.js';

/** Darker than this (0 black, 255 white) is ink; an anti-aliased hairline still falls below it. */
const INK = 160;
/** A rule is at least this long (points): longer than any stroke of a letter, shorter than a narrow cell. */
const MIN_RULE_POINTS = 24;
/** Ink rows (or columns) this close (pixels) are one rule drawn a few pixels thick. */
const THICKNESS_GAP = 2;
/** Thicker than this (points) is a filled area (a photo, a black box), not a rule. */
const MAX_THICKNESS_POINTS = 3;
/** Breaks this short (pixels) in a run of ink are scanner noise, not the end of the rule. */
const MAX_BREAK = 2;

interface Run {
  at: number;
  start: number;
  end: number;
}

/** Runs of ink along each line of pixels (rows, or columns when `vertical`), at least `min` pixels long. */
function inkRuns(image: ScanImage, vertical: boolean, min: number): Run[] {
  const { width, height, gray } = image;
  const [lines, length] = vertical ? [width, height] : [height, width];
  const runs: Run[] = [];
  for (let at = 0; at < lines; at++) {
    let start = -1;
    let lastInk = -1;
    for (let i = 0; i <= length; i++) {
      const ink = i < length && gray[vertical ? i * width + at : at * width + i]! < INK;
      if (ink) {
        if (start < 0) start = i;
        lastInk = i;
      } else if (start >= 0 && i - lastInk > MAX_BREAK) {
        if (lastInk - start + 1 >= min) runs.push({ at, start, end: lastInk });
        start = -1;
      }
    }
  }
  return runs;
}

/** Runs on neighbouring lines of pixels that overlap are one rule: its middle line, its full extent. */
function merge(runs: readonly Run[], maxThickness: number): Run[] {
  const groups: { first: number; last: number; start: number; end: number }[] = [];
  for (const run of runs) {
    const group = groups.find(
      (g) => run.at - g.last <= THICKNESS_GAP && run.start <= g.end && run.end >= g.start && run.at >= g.last,
    );
    if (group)
      Object.assign(group, {
        last: run.at,
        start: Math.min(group.start, run.start),
        end: Math.max(group.end, run.end),
      });
    else groups.push({ first: run.at, last: run.at, start: run.start, end: run.end });
  }
  return groups
    .filter((g) => g.last - g.first <= maxThickness)
    .map((g) => ({ at: (g.first + g.last) / 2, start: g.start, end: g.end }));
}

/** The page's rules in page space (points, as the scan's image is placed on the page). */
export function scanRules(image: ScanImage): Rule[] {
  const m = image.transform;
  const toPage = (px: number, py: number): [number, number] => {
    const [u, v] = [px / image.width, 1 - py / image.height];
    return [m[0] * u + m[2] * v + m[4], m[1] * u + m[3] * v + m[5]];
  };
  const pixelsPerPoint = image.height / Math.hypot(m[2], m[3]);
  const min = Math.round(MIN_RULE_POINTS * pixelsPerPoint);
  const thick = MAX_THICKNESS_POINTS * pixelsPerPoint;
  const rules: Rule[] = [];
  for (const run of merge(inkRuns(image, false, min), thick)) {
    const [a, b] = [toPage(run.start, run.at), toPage(run.end, run.at)];
    const y = (a[1] + b[1]) / 2;
    rules.push({ x0: Math.min(a[0], b[0]), y0: y, x1: Math.max(a[0], b[0]), y1: y });
  }
  for (const run of merge(inkRuns(image, true, min), thick)) {
    const [a, b] = [toPage(run.at, run.start), toPage(run.at, run.end)];
    const x = (a[0] + b[0]) / 2;
    rules.push({ x0: x, y0: Math.min(a[1], b[1]), x1: x, y1: Math.max(a[1], b[1]) });
  }
  return rules;
}
