/** Geometry in PDF points with y measured downwards from the top of the page (reading order). */

/** One text run as pdfjs reports it, placed on the page. */
export interface TextRun {
  text: string;
  x0: number;
  x1: number;
  /** Baseline, from the top of the page. */
  baseline: number;
  size: number;
  bold: boolean;
}

/** A straight drawn segment (table rule); horizontal or vertical only. */
export interface Rule {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** Runs on one baseline separated by no more than a word gap. */
export interface Segment {
  text: string;
  x0: number;
  x1: number;
}

export interface Line {
  text: string;
  segments: Segment[];
  x0: number;
  x1: number;
  baseline: number;
  /** Dominant font size, weighted by characters. */
  size: number;
  bold: boolean;
}

export interface PageContent {
  number: number;
  width: number;
  height: number;
  runs: TextRun[];
  rules: Rule[];
}

export type Block =
  | { kind: 'heading'; level: number; text: string; top: number }
  | { kind: 'paragraph'; text: string; top: number }
  | { kind: 'list'; items: ListItem[]; top: number }
  | { kind: 'table'; rows: string[][]; top: number };

export interface ListItem {
  ordered: boolean;
  level: number;
  text: string;
}
