/**
 * The ocr op's deadline scales with the page count: about 5 s a page on one core (measured),
 * given 30 s a page so a busy machine still finishes. The count is read cheaply and
 * synchronously (the runner asks for the deadline before the run): the page tree's /Count in
 * the first and last megabyte of the file; when the page tree sits in a compressed object
 * stream, the size decides (a scanned page weighs 100 KB or more).
 */
import { closeSync, openSync, readSync } from 'node:fs';
import type { PluginInput, WorkMeasure } from '../../../core/contract/index.js';
import { openPdf } from '../../../core/engines/qpdf.js';

const BASE_MS = 60_000;
const PER_PAGE_MS = 30_000;
const MAX_MS = 6 * 3600_000;
const WINDOW_BYTES = 1 << 20;
const BYTES_PER_PAGE_GUESS = 100_000;
const MAX_PAGES = 10_000;
/** A page takes at least a page object and a content reference: no file holds more pages than bytes / 40. */
const MIN_BYTES_PER_PAGE = 40;

/** The largest /Count in a window of the file, or 0. */
function countsIn(file: string, size: number): number {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const windows =
      size <= 2 * WINDOW_BYTES
        ? [[0, size]]
        : [
            [0, WINDOW_BYTES],
            [size - WINDOW_BYTES, WINDOW_BYTES],
          ];
    let highest = 0;
    for (const [position, length] of windows) {
      const buffer = Buffer.alloc(length!);
      const read = readSync(fd, buffer, 0, length!, position!);
      for (const match of buffer
        .subarray(0, read)
        .toString('latin1')
        .matchAll(/\/Count\s+(\d{1,6})\b/g))
        highest = Math.max(highest, Number(match[1]));
    }
    return highest;
  } catch {
    return 0;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Pages of the input as far as a cheap look can tell (at least 1). */
export function estimatePages(input: Pick<PluginInput, 'path' | 'bytes'>): number {
  // A declared /Count is believed only as far as the file's size allows (a hostile file may claim a billion).
  const counted = Math.min(
    input.path ? countsIn(input.path, input.bytes) : 0,
    Math.ceil(input.bytes / MIN_BYTES_PER_PAGE),
  );
  const guessed = Math.ceil(input.bytes / BYTES_PER_PAGE_GUESS);
  return Math.max(1, Math.min(MAX_PAGES, counted || guessed));
}

/**
 * Pages one ocr job may carry (a 5,000-page PDF of a few kilobytes costs 10 credits
 * like any small PDF): at about 5 s a page, 250 pages are some 20 minutes of a core, and the
 * deadline at most 60 s + 250 x 30 s.
 */
export const MAX_OCR_PAGES = 250;

/** limits.timeoutMs of the ocr op: the page count qpdf measured, else the cheap estimate. */
export function ocrTimeoutMs(inputs: readonly PluginInput[], measuredPages?: number): number {
  const pages = measuredPages ?? inputs.reduce((sum, input) => sum + estimatePages(input), 0);
  return Math.min(MAX_MS, BASE_MS + pages * PER_PAGE_MS);
}

/** limits.work of the ocr op: pages, counted by qpdf (an encrypted or unreadable file is left to the run). */
export const ocrWork: WorkMeasure = {
  unit: 'pages',
  max: MAX_OCR_PAGES,
  measure: (input, { signal, timeoutMs, workDir }) =>
    openPdf(input.path, { signal, workDir, remainingMs: () => timeoutMs }),
};
