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
  /** Its runs, left to right. */
  runs: TextRun[];
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
  /** A page with no text layer: its scanned image, for OCR. */
  scan?: ScanImage;
}

/** 8-bit grey pixels (rows from the top) and the transform taking the image's unit square onto the page. */
export interface ScanImage {
  width: number;
  height: number;
  gray: Uint8Array;
  transform: [number, number, number, number, number, number];
}

/** One bookmark of the document's outline: its title, nesting depth (0 = top) and destination page. */
export interface OutlineEntry {
  title: string;
  depth: number;
  page: number;
}

/** Text that may run across a page break keeps each page's share apart, for page markers. */
export interface TextPart {
  page: number;
  text: string;
}

/** A rectangle on a page in points, y downwards: where a block sits on the page it starts on. */
export interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export type Block =
  | { kind: 'heading'; page: number; box?: Box; level: number; text: string }
  | { kind: 'paragraph'; page: number; box?: Box; parts: TextPart[] }
  | { kind: 'list'; page: number; box?: Box; items: ListItem[] }
  | { kind: 'table'; page: number; box?: Box; rows: string[][] };

export interface ListItem {
  page: number;
  /** Its lines on the page it starts on (marker included). */
  box?: Box;
  ordered: boolean;
  /** The number its marker shows ("7." is 7, "b)" is 2): a list that starts at 7 or resumes keeps it. */
  number?: number;
  level: number;
  /** Its text, one part per page it runs over (like a paragraph's), so page markers fall inside it. */
  parts: TextPart[];
}
