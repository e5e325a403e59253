import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BASELINES_PATH,
  type Baselines,
  checkFigures,
  type Figure,
  failures,
  formatBaselines,
  readBaselines,
  unexplainedLowerings,
  updateBaselines,
} from './ratchet.js';

const baselines: Baselines = {
  'x.f1': { value: 0.9, better: 'higher', tolerance: 0.005 },
  'x.leaks': { value: 2, better: 'lower', tolerance: 0 },
};
const figure = (id: string, value: number): Figure => ({
  id,
  value,
  better: baselines[id]?.better ?? 'higher',
  tolerance: baselines[id]?.tolerance ?? 0.005,
});

describe('checkFigures', () => {
  it('holds a figure within its tolerance and fails one beyond it, either direction', () => {
    const verdicts = checkFigures(
      [figure('x.f1', 0.896), figure('x.f1', 0.894), figure('x.leaks', 2), figure('x.leaks', 3)],
      baselines,
    );
    expect(verdicts.map((v) => v.status)).toEqual(['held', 'regressed', 'held', 'regressed']);
  });

  it('reports better figures as improved, and they do not fail', () => {
    const verdicts = checkFigures([figure('x.f1', 0.95), figure('x.leaks', 0)], baselines);
    expect(verdicts.map((v) => v.status)).toEqual(['improved', 'improved']);
    expect(failures(verdicts)).toEqual([]);
  });

  it('fails a figure with no baseline, and one whose direction or tolerance changed', () => {
    const verdicts = checkFigures(
      [figure('x.new', 1), { id: 'x.f1', value: 0.9, better: 'higher', tolerance: 0.05 }],
      baselines,
    );
    expect(failures(verdicts).map((v) => v.status)).toEqual(['new', 'definition changed']);
  });
});

describe('updateBaselines', () => {
  it('raises freely and lowers only with a reason, recorded with the former value', () => {
    const raised = updateBaselines(baselines, [figure('x.f1', 0.95)]);
    expect(raised.baselines['x.f1']).toEqual({ value: 0.95, better: 'higher', tolerance: 0.005 });
    const refused = updateBaselines(baselines, [figure('x.leaks', 3)]);
    expect(refused.refused).toEqual(['x.leaks']);
    expect(refused.baselines['x.leaks']!.value).toBe(2);
    const lowered = updateBaselines(baselines, [figure('x.leaks', 3)], 'a listing line now kept as body');
    expect(lowered.baselines['x.leaks']).toMatchObject({ value: 3, from: 2, why: 'a listing line now kept as body' });
  });

  it('keeps the note of a lowered figure while its value stands, and drops it once the figure is raised', () => {
    const noted = updateBaselines(baselines, [figure('x.leaks', 3)], 'a listing line now kept as body').baselines;
    const again = updateBaselines(noted, [figure('x.leaks', 3), figure('x.f1', 0.95)]).baselines;
    expect(again['x.leaks']).toMatchObject({ value: 3, from: 2, why: 'a listing line now kept as body' });
    expect(updateBaselines(noted, [figure('x.leaks', 1)]).baselines['x.leaks']).toEqual({
      value: 1,
      better: 'lower',
      tolerance: 0,
    });
  });
});

describe('unexplainedLowerings', () => {
  it('needs a new why on each lowered, loosened or turned entry', () => {
    const lowered: Baselines = { ...baselines, 'x.f1': { ...baselines['x.f1']!, value: 0.8 } };
    expect(unexplainedLowerings(baselines, lowered)).toEqual(['x.f1']);
    expect(unexplainedLowerings(baselines, { ...lowered, 'x.f1': { ...lowered['x.f1']!, why: 'reason' } })).toEqual([]);
    const loosened: Baselines = { ...baselines, 'x.leaks': { ...baselines['x.leaks']!, tolerance: 5 } };
    expect(unexplainedLowerings(baselines, loosened)).toEqual(['x.leaks']);
    const reasonKept: Baselines = {
      'x.f1': { ...baselines['x.f1']!, why: 'old reason' },
    };
    expect(unexplainedLowerings(reasonKept, { 'x.f1': { ...reasonKept['x.f1']!, value: 0.7 } })).toEqual(['x.f1']);
  });
});

/** The committed file before its latest change: HEAD's when the working copy differs, else the one before. */
function previousBaselines(): Baselines | undefined {
  const path = relative(
    execFileSync('git', ['rev-parse', '--show-toplevel'], { encoding: 'utf8' }).trim(),
    BASELINES_PATH,
  );
  const show = (revision: string) => {
    try {
      return JSON.parse(
        execFileSync('git', ['show', `${revision}:${path}`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }),
      ) as Baselines;
    } catch {
      return undefined;
    }
  };
  const head = show('HEAD');
  if (head && JSON.stringify(head) !== JSON.stringify(readBaselines())) return head;
  const last = execFileSync('git', ['log', '-1', '--format=%H', '--', path], { encoding: 'utf8' }).trim();
  return last ? show(`${last}^`) : undefined;
}

describe('bench/baselines.json', () => {
  it('is written in its canonical form (sorted, one figure a line)', () => {
    expect(readFileSync(BASELINES_PATH, 'utf8')).toBe(formatBaselines(readBaselines()));
  });

  it('lowers no baseline without a note on why, against the version before its last change', () => {
    // A shallow clone without that history has nothing to compare with: the check needs the previous version.
    const previous = previousBaselines();
    expect(unexplainedLowerings(previous ?? readBaselines(), readBaselines())).toEqual([]);
  });
});
