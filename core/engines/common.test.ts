import { describe, expect, it } from 'vitest';
import { debianPackages } from '../contract/index.js';
import { STANDARD_ENGINES } from './catalog.js';
import { engineDetail, isExitFailure, withDetail, withoutServerPaths } from './common.js';
import { EngineError } from './process.js';

describe('engine failure building blocks', () => {
  it('keep the engine`s last words without program name or server paths', () => {
    expect(
      engineDetail(
        'WARNING: something\nqpdf: /tmp/job-1/in.pdf: unable to find trailer dictionary while recovering damaged ' +
          'file\n',
      ),
    ).toBe('unable to find trailer dictionary while recovering damaged file');
    expect(engineDetail('gs: cannot open /srv/data/work/x.pdf for reading')).toBe('cannot open the file for reading');
    expect(engineDetail('\n\n')).toBe('');
  });

  it('take every absolute server path out, keeping MIME types, ratios, URLs and option values', () => {
    expect(withoutServerPaths("Impossible to open '/srv/data/blobs/uploads/ab12.mp3'")).toBe(
      'Impossible to open the file',
    );
    expect(withoutServerPaths('/usr/lib/x.gif: not allowed; see /tmp/run-1/in.pdf')).toBe(
      'the file: not allowed; see the file',
    );
    const kept = 'image/png, 1/2, PDF/A-2b, https://example.com/a/b and the /screen profile';
    expect(withoutServerPaths(kept)).toBe(kept);
    expect(withDetail('Could not convert', 'cannot open /work/job/x.odt')).toBe(
      'Could not convert (cannot open the file)',
    );
  });

  it('add a detail in parentheses, or nothing', () => {
    expect(withDetail('The PDF could not be read', 'damaged')).toBe('The PDF could not be read (damaged)');
    expect(withDetail('The PDF could not be read', '')).toBe('The PDF could not be read');
  });

  it('explain only exits, never aborts, timeouts or missing engines', () => {
    const live = new AbortController().signal;
    const exit = new EngineError('x exited with code 1', 'exit', 'x', 1, '');
    expect(isExitFailure(exit, live)).toBe(true);
    expect(isExitFailure(new EngineError('x timed out', 'timeout', 'x', null, ''), live)).toBe(false);
    expect(isExitFailure(new EngineError('x is not installed', 'missing', 'x', null, ''), live)).toBe(false);
    expect(isExitFailure(new Error('other'), live)).toBe(false);
    expect(isExitFailure(exit, AbortSignal.abort())).toBe(false);
  });
});

describe('the standard engines', () => {
  it('are each declared once, with their Debian packages', () => {
    const commands = STANDARD_ENGINES.map((engine) => engine.command);
    expect(new Set(commands).size).toBe(commands.length);
    for (const engine of STANDARD_ENGINES) {
      // A plain program name (hyphens as in chromium-headless-shell): its override variable is derived from it.
      expect(engine.command).toMatch(/^[a-z0-9][a-z0-9_-]*$/);
      expect(debianPackages(engine).length).toBeGreaterThan(0);
      for (const pkg of debianPackages(engine)) expect(pkg).toMatch(/^[a-z0-9][a-z0-9.+-]+$/);
    }
  });
});
