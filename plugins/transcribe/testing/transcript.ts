/** Checks shared by the transcription tests (in-process and over HTTP): a row's timing rules. */
import { expect } from 'vitest';
import { isFileResult } from '../../../core/contract/index.js';
import type { TestRun } from '../../../core/contract/testing/index.js';
import type { Segment, TranscriptRow } from '../transcribe/run.js';

/**
 * Segments per the spec: only start, end and text; start < end; each starting at or after the
 * previous end; all within the duration; no empty text; `text` is the segments' texts joined.
 */
export function expectTimedSegments(row: { duration: number; text: string; segments: readonly Segment[] }): void {
  expect(row.segments.length).toBeGreaterThan(0);
  let previousEnd = 0;
  for (const segment of row.segments) {
    expect(Object.keys(segment).sort()).toEqual(['end', 'start', 'text']);
    expect(segment.start).toBeGreaterThanOrEqual(previousEnd);
    expect(segment.start).toBeLessThan(segment.end);
    expect(segment.end).toBeLessThanOrEqual(row.duration);
    expect(segment.text.trim()).not.toBe('');
    previousEnd = segment.end;
  }
  expect(row.text).toBe(row.segments.map((s) => s.text).join(' '));
}

/** The row of an in-process run (runPlugin). */
export function rowOf(run: TestRun): TranscriptRow {
  if (isFileResult(run.result)) throw new Error('expected a row');
  return run.result.row as unknown as TranscriptRow;
}

/** A plugin row: exactly the spec's four fields, with well-timed segments. */
export function expectTranscriptRow(row: TranscriptRow): void {
  expect(Object.keys(row).sort()).toEqual(['duration', 'language', 'segments', 'text']);
  expectTimedSegments(row);
}
