import type { TextRun } from '../shared/engine/types.js';

/** A text run as the engine reads it from a page, its width from a 0.5 em advance per character. */
export const run = (text: string, x0: number, baseline: number, size = 10): TextRun => ({
  text,
  x0,
  x1: x0 + text.length * size * 0.5,
  baseline,
  size,
  bold: false,
});
