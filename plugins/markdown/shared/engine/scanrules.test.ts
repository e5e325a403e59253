/** Rules found in a scan's pixels: long straight runs of ink, never the strokes of letters. */
import { describe, expect, it } from 'vitest';
import { scanRules } from './scanrules.js';
import type { ScanImage } from './types.js';

/** A white page of 300 x 200 points at 4 pixels a point, placed at the origin (y down, as the engine reads). */
function page(
  draw: (ink: (x0: number, y0: number, x1: number, y1: number, shade?: number) => void) => void,
): ScanImage {
  const [width, height] = [1200, 800];
  const gray = new Uint8Array(width * height).fill(255);
  draw((x0, y0, x1, y1, shade = 0) => {
    for (let y = y0; y <= y1; y++) for (let x = x0; x <= x1; x++) gray[y * width + x] = shade;
  });
  return { width, height, gray, transform: [300, 0, 0, -200, 0, 200] };
}

describe('rules drawn on a scan', () => {
  it('finds a grid line drawn a few pixels thick, anti-aliased, as one rule in page points', () => {
    const image = page((ink) => {
      ink(80, 100, 1000, 101); // a 0.5 pt rule at y 25 pt, x 20-250 pt
      ink(80, 102, 1000, 102, 150); // its anti-aliased edge
      ink(400, 100, 401, 600); // a column rule at x 100 pt, y 25-150 pt
    });
    const rules = scanRules(image);
    expect(rules).toHaveLength(2);
    const [horizontal, vertical] = rules;
    expect(horizontal!.y0).toBe(horizontal!.y1);
    expect(horizontal!.x0).toBeCloseTo(20, 0);
    expect(horizontal!.x1).toBeCloseTo(250, 0);
    expect(horizontal!.y0).toBeCloseTo(25.25, 0);
    expect(vertical!.x0).toBe(vertical!.x1);
    expect(vertical!.y1 - vertical!.y0).toBeCloseTo(125, 0);
  });

  it('finds no rule in letters, light shading or a filled block', () => {
    const image = page((ink) => {
      for (let i = 0; i < 20; i++) ink(100 + 30 * i, 300, 104 + 30 * i, 340); // stems of letters, 10 pt tall
      ink(100, 400, 1100, 440, 230); // a zebra stripe: light grey
      ink(100, 500, 600, 700); // a black box, 50 pt tall
    });
    expect(scanRules(image)).toEqual([]);
  });
});
