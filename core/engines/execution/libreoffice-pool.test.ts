/**
 * The warm LibreOffice pool against real soffice listeners and the real UNO bridge: concurrent
 * conversions, a listener killed mid-conversion, a hanging document, a hung idle listener,
 * recycling, the damaged-file message, the memory cap, and the fallback to cold soffice.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PluginError, type Logger } from '../../contract/index.js';
import { LibreOfficePool, type LibreOfficePoolOptions } from './libreoffice-pool.js';
import { convertDocument, useOfficeConverter, type OfficeConversion } from '../libreoffice.js';
import { configureConfinement, probeConfinement, withEngineScope } from '../confine.js';
import { configureEnginePaths, enginePaths } from '../paths.js';
import { EngineError, runProcess } from '../process.js';
import { processTree } from './process-tree.js';
import { rejectionOf } from '../testing/files.js';

const quiet: Logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
const DOCX = 'MS Word 2007 XML';
const TO_PDF = 'pdf:writer_pdf_Export';

let dir: string;
let runs = 0;
/**
 * Sources made once: a one-page memo, a ~600-page document (seconds to convert), a damaged DOCX, a text that never
 * finishes.
 */
const sources = { memo: '', long: '', broken: '', hang: '' };

async function pandocDocx(name: string, markdown: string): Promise<string> {
  await writeFile(path.join(dir, `${name}.md`), markdown);
  const docx = path.join(dir, `${name}.docx`);
  await withEngineScope({ writable: [dir] }, () =>
    runProcess('pandoc', [path.join(dir, `${name}.md`), '-o', docx], { timeoutMs: 60_000 }),
  );
  return docx;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'office-pool-'));
  sources.memo = await pandocDocx('memo', '# Pool Memo\n\nThe walrus signed the lease.\n');
  sources.long = await pandocDocx(
    'long',
    Array.from(
      { length: 10_000 },
      (_, i) => `Paragraph ${i} of a long document, with words enough to fill a line or two on its page.\n`,
    ).join('\n'),
  );
  sources.broken = path.join(dir, 'broken.docx');
  await writeFile(sources.broken, Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(4000, 0x5a)]));
  // 100k pages of nothing: LibreOffice lays them out until it is killed.
  sources.hang = path.join(dir, 'hang.txt');
  await writeFile(sources.hang, '\f'.repeat(100_000));
  // Listeners run jailed, as in the service, wherever jails can be made.
  configureConfinement((await probeConfinement()).ok);
}, 120_000);
afterAll(async () => {
  configureConfinement(false);
  await rm(dir, { recursive: true, force: true });
});

/** `source` copied to a run directory of its own, as `name` (soffice names the output after it). */
async function conversion(source: string, name = 'input.docx', inputFilter = DOCX): Promise<OfficeConversion> {
  const runDir = path.join(dir, `run-${++runs}`);
  await mkdir(runDir);
  await copyFile(source, path.join(runDir, name));
  return { input: path.join(runDir, name), convertTo: TO_PDF, inputFilter, outDir: path.join(runDir, 'out') };
}

async function pdfText(file: string): Promise<string> {
  return (
    await withEngineScope({ writable: [dir] }, () =>
      runProcess('pdftotext', ['-enc', 'UTF-8', file, '-'], { timeoutMs: 30_000 }),
    )
  ).stdout;
}

const pools: LibreOfficePool[] = [];
function pool(options: Partial<LibreOfficePoolOptions> = {}): LibreOfficePool {
  const made = new LibreOfficePool({ size: 1, log: quiet, tmpDir: dir, ...options });
  pools.push(made);
  return made;
}

/** A pool whose one listener is warm, and that listener's pid. */
async function warmPool(
  options: Partial<LibreOfficePoolOptions> = {},
): Promise<{ office: LibreOfficePool; firstPid: number }> {
  const office = pool(options);
  await office.warm();
  return { office, firstPid: office.status().listeners[0]!.pid! };
}

/** The pool converts the next file: the memo comes out as its PDF. */
async function convertsMemo(office: LibreOfficePool): Promise<void> {
  const result = await office.convert(await conversion(sources.memo), { timeoutMs: 60_000 });
  expect(await pdfText(result!.output!)).toContain('Pool Memo');
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(condition: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

afterEach(async () => {
  useOfficeConverter(undefined);
  const pids = pools.flatMap((p) => p.status().listeners.flatMap((l) => (l.pid ? [l.pid] : [])));
  await Promise.all(pools.splice(0).map((p) => p.close()));
  // close() leaves no listener behind, nor the pipe sockets of the listeners it killed.
  expect(pids.filter(alive)).toEqual([]);
  expect((await readdir('/tmp')).filter((name) => name.includes(`_transmute-office-${process.pid}-`))).toEqual([]);
});

describe('LibreOffice pool', () => {
  it('converts on two listeners at once, each file to its own output', async () => {
    const office = pool({ size: 2 });
    await office.warm();
    expect(office.status()).toMatchObject({ mode: 'pool', size: 2, listeners: [{ state: 'idle' }, { state: 'idle' }] });
    // Same file name, different contents, converted at the same time.
    const walrus = await conversion(sources.memo);
    const other = await conversion(await pandocDocx('other', '# Other Memo\n\nThe heron kept the minutes.\n'));
    const [a, b] = await Promise.all([walrus, other].map((c) => office.convert(c, { timeoutMs: 60_000 })));
    expect(a?.output).toBe(path.join(walrus.outDir, 'input.pdf'));
    expect(b?.output).toBe(path.join(other.outDir, 'input.pdf'));
    expect(await pdfText(a!.output!)).toContain('The walrus signed the lease.');
    expect(await pdfText(b!.output!)).toContain('The heron kept the minutes.');
    const status = office.status();
    expect(status.conversions).toBe(2);
    expect(status.listeners.map((l) => l.conversions)).toEqual([1, 1]);
    expect(status.listeners.every((l) => l.rssMb > 0)).toBe(true);
  }, 120_000);

  it("runs each listener jailed: no network of the host, and no view of the runs' folders", async (context) => {
    if (!(await probeConfinement()).ok) return context.skip();
    const { office, firstPid } = await warmPool();
    const memo = await conversion(sources.memo);
    // The host's view of the listener's own: /proc/<pid>/root and /proc/<pid>/ns.
    const processes = await processTree(firstPid);
    const comms = await Promise.all(
      processes.map(async (p) => ({
        pid: p.pid,
        comm: (await readFile(`/proc/${p.pid}/comm`, 'utf8').catch(() => '')).trim(),
      })),
    );
    const soffice = comms.find((p) => p.comm.startsWith('soffice'))!;
    expect(soffice).toBeDefined();
    expect(await readlink(`/proc/${soffice.pid}/ns/net`)).not.toBe(await readlink('/proc/self/ns/net'));
    expect(existsSync(`/proc/${soffice.pid}/root${memo.input}`)).toBe(false);
    expect(existsSync(`/proc/${soffice.pid}/root/usr/lib/libreoffice`)).toBe(true);
    // Files still go through: the run's input in, its PDF out.
    const result = await office.convert(memo, { timeoutMs: 60_000 });
    expect(await pdfText(result!.output!)).toContain('The walrus signed the lease.');
  }, 120_000);

  it('starts a listener on first demand when not warmed, removing profiles a killed process left behind', async () => {
    // A pool's directory whose process is gone (a server killed with SIGKILL), and one whose process lives.
    const gone = spawn('true');
    await once(gone, 'exit');
    const orphaned = path.join(dir, `transmute-office-${gone.pid}-x1`);
    const living = path.join(dir, `transmute-office-${process.ppid}-x2`);
    await Promise.all([orphaned, living].map((d) => mkdir(path.join(d, 'listener-0'), { recursive: true })));
    const orphanedSocket = `/tmp/OSL_PIPE_0_transmute-office-${gone.pid}-0-1-x3`;
    await writeFile(orphanedSocket, '');
    const office = pool();
    expect(office.status().listeners).toEqual([{ state: 'stopped', conversions: 0, rssMb: 0 }]);
    const result = await office.convert(await conversion(sources.memo), { timeoutMs: 60_000 });
    expect(await pdfText(result!.output!)).toContain('Pool Memo');
    // The listener is given back as the answer is returned, not before: idle a moment later.
    await until(() => office.status().listeners[0]!.state === 'idle');
    expect(office.status().listeners[0]).toMatchObject({ state: 'idle', conversions: 1 });
    expect(existsSync(orphaned)).toBe(false);
    expect(existsSync(orphanedSocket)).toBe(false);
    expect(existsSync(living)).toBe(true);
  }, 120_000);

  it('retries a conversion once on a fresh listener when its listener is killed under it; the next one ' +
    'runs', async () => {
    const { office, firstPid } = await warmPool();
    const converting = office.convert(await conversion(sources.long), { timeoutMs: 120_000 });
    await until(() => office.status().listeners[0]!.state === 'busy');
    await new Promise((r) => setTimeout(r, 300));
    process.kill(-firstPid, 'SIGKILL');
    const result = await converting;
    expect(await pdfText(result!.output!)).toContain('Paragraph 9999 of a long document');
    const status = office.status();
    expect(status).toMatchObject({ retried: 1, restarts: 1, mode: 'pool' });
    expect(status.listeners[0]!.pid).not.toBe(firstPid);
    await convertsMemo(office);
  }, 240_000);

  it('kills a hanging document at its deadline, replaces the listener, and converts the next file', async () => {
    const { office, firstPid } = await warmPool();
    useOfficeConverter(office.convert);
    const hang = await conversion(sources.hang, 'input.txt', 'Text (encoded):UTF8');
    const ctx = { signal: new AbortController().signal, remainingMs: () => 2_000 };
    const error = await rejectionOf(
      convertDocument(
        {
          ...hang,
          profileDir: path.join(dir, 'unused-profile'),
          summary: 'Could not convert this document to PDF',
          inputLabel: 'TXT',
        },
        ctx,
      ),
    );
    expect(error).toBeInstanceOf(PluginError);
    expect(error.message).toBe('Could not convert this document to PDF: the conversion took too long');
    expect(office.status().restarts).toBe(1);
    await until(() => office.status().listeners[0]!.state === 'idle');
    expect(office.status().listeners[0]!.pid).not.toBe(firstPid);
    expect(alive(firstPid)).toBe(false);
    await convertsMemo(office);
  }, 240_000);

  it('an aborted run stops its conversion: the listener is killed and replaced', async () => {
    const { office, firstPid } = await warmPool();
    const controller = new AbortController();
    const converting = office.convert(await conversion(sources.hang, 'input.txt', 'Text (encoded):UTF8'), {
      timeoutMs: 60_000,
      signal: controller.signal,
    });
    await until(() => office.status().listeners[0]!.state === 'busy');
    controller.abort();
    const error = await rejectionOf(converting);
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).reason).toBe('aborted');
    await until(() => office.status().listeners[0]!.state === 'idle');
    expect(office.status().listeners[0]!.pid).not.toBe(firstPid);
  }, 240_000);

  it('replaces an idle listener that stops answering its health check', async () => {
    const { office, firstPid: hungPid } = await warmPool({ healthCheckMs: 300, pingTimeoutMs: 3_000 });
    // Every process of the listener: a jailed soffice leads a session of its own, inside bwrap's.
    for (const proc of await processTree(hungPid)) process.kill(proc.pid, 'SIGSTOP');
    await until(() => office.status().restarts >= 1 && office.status().listeners[0]!.state === 'idle');
    expect(office.status().listeners[0]!.pid).not.toBe(hungPid);
    await convertsMemo(office);
  }, 240_000);

  it('recycles a listener after its K conversions', async () => {
    const { office, firstPid } = await warmPool({ maxConversions: 2 });
    for (let i = 0; i < 3; i++) {
      const result = await office.convert(await conversion(sources.memo), { timeoutMs: 60_000 });
      expect(result?.output).toBeDefined();
    }
    const status = office.status();
    expect(status).toMatchObject({ recycled: 1, restarts: 0, conversions: 3 });
    expect(status.listeners[0]!.pid).not.toBe(firstPid);
    expect(status.listeners[0]!.conversions).toBe(1);
  }, 240_000);

  it('fails a damaged DOCX with the same client message as a cold soffice', async () => {
    const office = pool();
    useOfficeConverter(office.convert);
    const broken = await conversion(sources.broken);
    const job = {
      ...broken,
      profileDir: path.join(dir, 'unused-profile'),
      summary: 'Could not convert this document to PDF',
      inputLabel: 'DOCX',
    };
    const error = await rejectionOf(
      convertDocument(job, { signal: new AbortController().signal, remainingMs: () => 60_000 }),
    );
    expect(error).toBeInstanceOf(PluginError);
    expect(error.message).toBe(
      'Could not convert this document to PDF: the file may be damaged or is not a DOCX file (Error: source file ' +
        'could not be loaded)',
    );
    expect(office.status()).toMatchObject({ conversions: 1, coldFallbacks: 0 });
    // It really was forced through the DOCX filter: no output, not a PDF of the bytes as text.
    expect(await readFile(path.join(broken.outDir, 'input.pdf')).catch(() => undefined)).toBeUndefined();
  }, 120_000);

  it('kills a listener whose conversion goes over the run memory cap', async () => {
    const office = pool();
    await office.warm();
    const error = await rejectionOf(
      office.convert(await conversion(sources.long), { timeoutMs: 120_000, memoryMb: 1 }),
    );
    expect(error).toBeInstanceOf(PluginError);
    expect(error.message).toBe('The job exceeded the memory limit of 1 MB');
    expect(office.status().restarts).toBe(1);
  }, 240_000);

  describe('circuit breaker', () => {
    const paths = enginePaths();
    afterEach(() => configureEnginePaths(paths));

    it('falls back to cold soffice when the UNO bridge cannot start, and conversions keep working', async () => {
      const office = pool({ size: 2, pythonPath: path.join(dir, 'no-such-python'), failuresBeforeFallback: 2 });
      await office.warm();
      const status = office.status();
      expect(status.mode).toBe('cold');
      expect(status.fallbackReason).toMatch(
        /failed to start 2 times in a row \(the python with python3-uno is not installed\)/,
      );
      expect(status.listeners.map((l) => l.state)).toEqual(['down', 'down']);
      useOfficeConverter(office.convert);
      const memo = await conversion(sources.memo);
      // A cold soffice sees the run's folder, as in a sandbox process.
      const output = await withEngineScope({ writable: [dir] }, () =>
        convertDocument(
          {
            ...memo,
            profileDir: path.join(dir, `cold-profile-${runs}`),
            summary: 'Could not convert',
            inputLabel: 'DOCX',
          },
          { signal: new AbortController().signal, remainingMs: () => 60_000 },
        ),
      );
      expect(await pdfText(output)).toContain('The walrus signed the lease.');
      expect(office.status().coldFallbacks).toBe(1);
    }, 120_000);

    it('falls back when soffice exits at start, and tries a listener again later', async () => {
      configureEnginePaths({ ...paths, soffice: '/bin/false' });
      const office = pool({ failuresBeforeFallback: 1, retryAfterMs: 300 });
      await office.warm();
      expect(office.status()).toMatchObject({
        mode: 'cold',
        fallbackReason: expect.stringMatching(/soffice exited \(code 1\)/),
      });
      // The soffice is back: the breaker's next probe starts a listener and the pool is in use again.
      configureEnginePaths(paths);
      await until(() => office.status().mode === 'pool' && office.status().listeners[0]!.state === 'idle');
      await convertsMemo(office);
    }, 120_000);

    it('reports a missing soffice', async () => {
      configureEnginePaths({ ...paths, soffice: path.join(dir, 'no-such-soffice') });
      const office = pool();
      await office.warm();
      expect(office.status()).toMatchObject({ mode: 'cold', fallbackReason: 'soffice is not installed' });
    });

    it('is disabled with size 0: every conversion is left to cold soffice', async () => {
      const office = pool({ size: 0 });
      await office.warm();
      expect(office.status()).toMatchObject({ mode: 'disabled', listeners: [] });
      expect(await office.convert(await conversion(sources.memo), { timeoutMs: 1_000 })).toBeUndefined();
    });
  });
});
