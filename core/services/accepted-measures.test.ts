import { describe, expect, it } from 'vitest';
import { AcceptedMeasures } from './accepted-measures.js';

const files = [{ blobKey: 'uploads/a', format: 'mov' }];
const probe = { ffprobe: { format: 'mov', output: {} } };

describe('AcceptedMeasures', () => {
  it('gives an entry once, to the same plugin and files: a second take (a retried attempt) finds nothing', () => {
    const measures = new AcceptedMeasures();
    measures.put('video-convert', files, { measured: 10, facts: [probe] });
    expect(measures.take('other-plugin', files)).toBeUndefined();
    expect(measures.take('video-convert', [{ blobKey: 'uploads/a', format: 'mp4' }])).toBeUndefined();
    expect(measures.take('video-convert', files)).toEqual({ measured: 10, facts: [probe] });
    expect(measures.take('video-convert', files)).toBeUndefined();
  });

  it('keeps a measure that could not be taken (undefined: the run measures), and drops facts past the limit', () => {
    const measures = new AcceptedMeasures({ maxFactsChars: 100 });
    measures.put('p', files, { measured: undefined, facts: [undefined] });
    expect(measures.take('p', files)).toEqual({ measured: undefined, facts: [undefined] });
    measures.put('p', files, { measured: 3, facts: [{ ffprobe: 'x'.repeat(200) }] });
    expect(measures.take('p', files)).toEqual({ measured: 3, facts: [] });
  });

  it('drops the oldest entries past its size, and entries no run took within the TTL', () => {
    let now = 0;
    const measures = new AcceptedMeasures({ maxEntries: 2, ttlMs: 1_000 }, () => now);
    const put = (n: number) =>
      measures.put('p', [{ blobKey: `uploads/${n}`, format: 'pdf' }], { measured: n, facts: [] });
    const take = (n: number) => measures.take('p', [{ blobKey: `uploads/${n}`, format: 'pdf' }]);
    put(1);
    put(2);
    put(3);
    expect(measures.size).toBe(2);
    expect(take(1)).toBeUndefined();
    now = 1_500;
    expect(take(2)).toBeUndefined();
    put(4);
    // The expired entry went when the new one came.
    expect(measures.size).toBe(1);
    expect(take(4)).toEqual({ measured: 4, facts: [] });
  });
});
