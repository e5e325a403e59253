/**
 * unlock-pdf, and both password ops: the password never on a command line, in a log line or in a
 * file left in the work dir.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { isFileResult, type RunContext } from '../../../core/contract/index.js';
import { runProcess } from '../../../core/engines/process.js';
import { pluginConformanceSuite, runPlugin } from '../../../core/contract/testing/index.js';
import { protectPdfPlugin } from '../protect-pdf/index.js';
import { unlockPdfPlugin } from './index.js';
import { FIXTURE_PASSWORD, pdfTestFixtures, pageTexts, outputOf } from '../testing/fixtures.js';
import { standardPlugins } from '../../index.js';

// Every engine call goes through runProcess: record the command lines it is given.
vi.mock('../../../core/engines/process.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../../core/engines/process.js')>();
  return { ...original, runProcess: vi.fn(original.runProcess) };
});

const fixtures = pdfTestFixtures();
const qpdf = (...args: string[]) => runProcess('qpdf', args, { timeoutMs: 15_000 });
const isEncrypted = (file: string) =>
  qpdf('--is-encrypted', file).then(
    () => true,
    () => false,
  );

pluginConformanceSuite(
  unlockPdfPlugin,
  [
    {
      name: 'with the right password: no encryption left, text intact',
      files: [fixtures.get('encrypted')],
      options: { password: FIXTURE_PASSWORD },
      expectFormat: 'pdf',
      async check(run) {
        expect(await isEncrypted(outputOf(run))).toBe(false);
        expect(await pageTexts(outputOf(run))).toEqual(['Page 1', 'Page 2']);
      },
    },
  ],
  { against: standardPlugins },
);

describe('passwords', () => {
  it('a wrong password fails with "Wrong password"', async () => {
    await expect(runPlugin(unlockPdfPlugin, [fixtures.get('encrypted')], { password: 'open sesame!' })).rejects.toThrow(
      /^Wrong password$/,
    );
  });

  it('unlocking a PDF that has no password, or protecting one that has, is refused', async () => {
    await expect(runPlugin(unlockPdfPlugin, [fixtures.get('eight')], { password: 'x' })).rejects.toThrow(
      'The PDF is not password-protected',
    );
    await expect(runPlugin(protectPdfPlugin, [fixtures.get('encrypted')], { password: 'x' })).rejects.toThrow(
      'The PDF is password-protected: unlock it first (op unlock-pdf)',
    );
  });

  it('any characters survive: leading dashes, quotes, spaces, line breaks, non-ASCII', async () => {
    for (const password of ['--', '-x --print=none', ' "quoted" \'both\' ', 'two\nlines', 'ünïcødé 密码 @file']) {
      const locked = await runPlugin(protectPdfPlugin, [fixtures.get('three')], { password });
      const unlocked = await runPlugin(unlockPdfPlugin, [{ path: outputOf(locked), format: 'pdf' }], { password });
      expect(await pageTexts(outputOf(unlocked))).toEqual(['B Page 1', 'B Page 2', 'B Page 3']);
    }
  });

  it('stays out of command lines, logs and files left in the work dir', async () => {
    const password = 'Zebra-Quartz-7731-unique';
    const spawned = vi.mocked(runProcess);
    spawned.mockClear();
    const logged: string[] = [];
    const log = (msg: string, data?: Record<string, unknown>) => logged.push(msg + JSON.stringify(data ?? {}));
    const workDir = await mkdtemp(path.join(os.tmpdir(), 'pdf-secret-'));
    const ctx: RunContext = {
      target: 'pdf',
      workDir,
      signal: AbortSignal.timeout(30_000),
      progress: () => {},
      log: { debug: log, info: log, warn: log, error: log },
      report: () => {},
      remainingMs: () => 30_000,
    };
    const input = { path: fixtures.get('eight').path, format: 'pdf' as const, filename: 'eight.pdf', bytes: 1 };

    // Process lists seen by another user while the runs go on.
    const snapshots: string[] = [];
    let running = true;
    const watcher = (async () => {
      while (running) {
        snapshots.push(
          await new Promise<string>((resolve) => {
            let out = '';
            const ps = spawn('ps', ['-eo', 'args']);
            ps.stdout.on('data', (chunk) => (out += chunk));
            ps.on('close', () => resolve(out));
          }),
        );
      }
    })();
    try {
      const locked = await protectPdfPlugin.run([input], { password }, ctx);
      if (!isFileResult(locked)) throw new Error('expected a file');
      await unlockPdfPlugin.run([{ ...input, path: locked.path }], { password }, ctx);
      await expect(
        unlockPdfPlugin.run([{ ...input, path: locked.path }], { password: `${password}x` }, ctx),
      ).rejects.toThrow('Wrong password');
    } finally {
      running = false;
      await watcher;
    }

    const commandLines = spawned.mock.calls.map(([command, args]) => [command, ...args].join(' '));
    expect(commandLines.length).toBeGreaterThan(0);
    for (const line of commandLines) expect(line).not.toContain(password);
    expect(snapshots.length).toBeGreaterThan(0);
    for (const snapshot of snapshots) expect(snapshot).not.toContain(password);
    for (const line of logged) expect(line).not.toContain(password);
    const leftFiles = await readdir(workDir, { recursive: true, withFileTypes: true });
    expect(leftFiles.filter((entry) => entry.name.startsWith('qpdf-job-'))).toEqual([]);
    for (const entry of leftFiles.filter((e) => e.isFile())) {
      expect((await readFile(path.join(entry.parentPath, entry.name))).includes(password)).toBe(false);
    }
  });
});
