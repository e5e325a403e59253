import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, readlink, rm, stat, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { PluginError } from '../contract/index.js';
import {
  chromiumPoolStatus,
  closeChromiumPool,
  configureChromiumPool,
  failsOnStatus,
  killGroupWithin,
  renderImage,
  renderPdf,
  type PageSource,
  type PdfRenderOptions,
} from './chromium.js';
import { configureConfinement, probeConfinement, withEngineScope } from './confine.js';
import { runProcess } from './process.js';
import { isProcessAlive, processTree } from './execution/process-tree.js';

const ORIGIN = 'https://doc.invalid';
const PDF: PdfRenderOptions = {
  waitFor: { kind: 'load' },
  format: 'A4',
  landscape: false,
  margin: { top: 10, right: 10, bottom: 10, left: 10 },
  scale: 1,
  printBackground: true,
};

function htmlSource(html: string, seen: string[] = []): PageSource {
  return {
    url: `${ORIGIN}/index.html`,
    fetch: async (request) => {
      seen.push(request.url);
      return request.url === `${ORIGIN}/index.html`
        ? { status: 200, headers: { 'content-type': 'text/html' }, body: Buffer.from(html) }
        : undefined;
    },
  };
}

const context = (ms = 30_000, signal = new AbortController().signal) => {
  const deadline = Date.now() + ms;
  return { signal, remainingMs: () => deadline - Date.now() };
};

describe('the Chromium pool', () => {
  let dir: string;
  /** A profile left by a browser whose owner died (a pid no process has), as Playwright named them before. */
  const orphan = path.join(os.tmpdir(), 'playwright_chromiumdev_profile-transmute-test-orphan');
  const ownerless = path.join(os.tmpdir(), 'transmute-chromium-profile-transmute-test-ownerless');
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'chromium-test-'));
    await mkdir(orphan, { recursive: true });
    await writeFile(path.join(orphan, 'transmute-owner'), '4194303');
    // And one left half-removed long ago (its owner file gone).
    await mkdir(ownerless, { recursive: true });
    const longAgo = new Date(Date.now() - 2 * 60 * 60_000);
    await utimes(ownerless, longAgo, longAgo);
  });
  beforeEach(async () => {
    await closeChromiumPool();
    configureChromiumPool({ size: 1, maxPages: 100, maxRssMb: 2_000 });
  });
  afterAll(async () => {
    await closeChromiumPool();
    await rm(dir, { recursive: true, force: true });
  });

  it('prints a page, answering its requests from Node and refusing the rest', async () => {
    const seen: string[] = [];
    const blocked: string[] = [];
    const output = path.join(dir, 'page.pdf');
    await renderPdf(
      htmlSource('<h1>Routed page</h1><img src="https://elsewhere.example/x.png">', seen),
      output,
      { ...PDF, onBlocked: (url) => blocked.push(url) },
      context(),
    );
    expect((await runProcess('pdftotext', [output, '-'], { timeoutMs: 10_000 })).stdout).toContain('Routed page');
    expect(seen).toEqual([`${ORIGIN}/index.html`, 'https://elsewhere.example/x.png']);
    expect(blocked).toEqual(['https://elsewhere.example/x.png']);
    // The first start swept the dead owner's profile and marked its own.
    await expect(stat(orphan)).rejects.toThrow();
    await expect(stat(ownerless)).rejects.toThrow();
    const owned = [];
    for (const entry of (await readdir(os.tmpdir())).filter((e) => e.startsWith('transmute-chromium-profile-'))) {
      if (
        (await readFile(path.join(os.tmpdir(), entry, 'transmute-owner'), 'utf8').catch(() => '')) ===
        String(process.pid)
      )
        owned.push(entry);
    }
    expect(owned).toHaveLength(1);
  }, 60_000);

  it('takes a screenshot at the asked viewport', async () => {
    const output = path.join(dir, 'shot.png');
    await renderImage(
      htmlSource('<body style="margin:0;background:#00f">blue</body>'),
      output,
      { waitFor: { kind: 'load' }, type: 'png', fullPage: false, viewport: { width: 320, height: 200 } },
      context(),
    );
    const { default: sharp } = await import('sharp');
    expect(await sharp(output).metadata()).toMatchObject({ width: 320, height: 200 });
  }, 60_000);

  it('keeps one browser warm and recycles it after maxPages', async () => {
    configureChromiumPool({ maxPages: 2 });
    const pids: number[] = [];
    for (let i = 0; i < 3; i++) {
      await renderPdf(htmlSource(`<p>page ${i}</p>`), path.join(dir, `r${i}.pdf`), PDF, context());
      pids.push(chromiumPoolStatus()!.instances[0]!.pid ?? -1);
    }
    // Pages 1 and 2 on one browser; it is recycled after the second, the third starts a new one.
    expect(chromiumPoolStatus()).toMatchObject({ leases: 3, recycled: 1 });
    expect(pids[2]).not.toBe(pids[0]);
    expect(isProcessAlive(pids[0]!)).toBe(false);
  }, 90_000);

  it("costs one renderer process per document, and keeps Playwright's switches", async () => {
    const renderers: string[][] = [];
    const source = htmlSource('<p>counted</p><img src="/count.png">');
    // Asked while the document's page is loaded and its context open: the renderers alive then are its own.
    const fetch = source.fetch;
    source.fetch = async (request) => {
      if (request.url.endsWith('/count.png')) {
        const found = [];
        for (const proc of await processTree(chromiumPoolStatus()!.instances[0]!.pid!)) {
          // A renderer forked by the zygote shows its arguments space-separated.
          const args = (await readFile(`/proc/${proc.pid}/cmdline`, 'utf8').catch(() => '')).split(/[\0 ]/);
          if (args.includes('--type=renderer')) found.push(args);
        }
        renderers.push(...found);
      }
      return fetch(request);
    };
    await renderPdf(source, path.join(dir, 'counted.pdf'), PDF, context());
    // Not the address bar's WebUI popup of the window new headless opens per context, nor a spare renderer.
    expect(renderers).toHaveLength(1);
    expect(renderers[0]).not.toContain('--top-chrome-webui');

    // What playwright-core 1.65 passed; Chromium reads only the last --disable-features.
    const cmdline = (await readFile(`/proc/${chromiumPoolStatus()!.instances[0]!.pid}/cmdline`, 'utf8')).split('\0');
    expect(cmdline).toEqual(
      expect.arrayContaining([
        '--disable-field-trial-config',
        '--disable-back-forward-cache',
        '--force-color-profile=srgb',
        '--hide-scrollbars',
        '--enable-features=CDPScreenshotNewSurface,SkipListAccountsWithoutGaiaCookies',
        '--remote-debugging-pipe',
        '--no-startup-window',
      ]),
    );
    const lists = cmdline
      .filter((arg) => arg.startsWith('--disable-features='))
      .map((arg) => arg.split('=')[1]!.split(','));
    expect(lists.at(-1)).toEqual(expect.arrayContaining(['PaintHolding', 'ThirdPartyStoragePartitioning']));
  }, 60_000);

  it("runs Debian's headless shell itself, not the full browser nor its launcher script", async () => {
    await renderPdf(htmlSource('<p>which browser</p>'), path.join(dir, 'which.pdf'), PDF, context());
    const browser = chromiumPoolStatus()!.instances[0]!.pid!;
    // The full browser's headless mode opens a window per context: about twice the CPU of a document.
    expect(await readlink(`/proc/${browser}/exe`)).toBe('/usr/lib/chromium/chromium-headless-shell');
  }, 60_000);

  it('gives each document a fresh context: nothing of one reaches the next', async () => {
    // Both documents on one origin: in a shared context the second would read the first's storage.
    const remember = `<script>localStorage.setItem('kept', 'yes'); document.cookie = 'kept=yes';</script>`;
    const recall = `<script>new Image().src = '/probe?' + (localStorage.getItem('kept') ?? 'none') + '&' +
      (document.cookie || 'none');</script>`;
    await renderPdf(htmlSource(remember), path.join(dir, 'first.pdf'), PDF, context());
    const seen: string[] = [];
    const blocked: string[] = [];
    const source = htmlSource(recall, seen);
    await renderPdf(source, path.join(dir, 'second.pdf'), { ...PDF, onBlocked: (url) => blocked.push(url) }, context());
    // The second document's request is seen and blocked: its offline routing is in place.
    expect(seen).toEqual([`${ORIGIN}/index.html`, `${ORIGIN}/probe?none&none`]);
    expect(blocked).toEqual([`${ORIGIN}/probe?none&none`]);
  }, 60_000);

  it('routes the requests of a frame from another site, and an alert() does not hold the page', async () => {
    // Another site's frame (in its own renderer where site isolation is on): its requests pass through Node too.
    const other = 'https://other-site.invalid/frame.html';
    const seen: string[] = [];
    const source: PageSource = {
      url: `${ORIGIN}/index.html`,
      fetch: async (request) => {
        seen.push(request.url);
        const html = {
          [`${ORIGIN}/index.html`]: `<script>alert('hello')</script><p>Host page</p><iframe src="${other}"></iframe>`,
          [other]: '<p>Framed text</p><img src="/framed.png">',
        }[request.url];
        return html ? { status: 200, headers: { 'content-type': 'text/html' }, body: Buffer.from(html) } : undefined;
      },
    };
    const output = path.join(dir, 'framed.pdf');
    await renderPdf(source, output, { ...PDF, waitFor: { kind: 'networkidle' } }, context(20_000));
    const text = (await runProcess('pdftotext', [output, '-'], { timeoutMs: 10_000 })).stdout;
    expect(text).toContain('Host page');
    expect(text).toContain('Framed text');
    expect(seen).toEqual([`${ORIGIN}/index.html`, other, 'https://other-site.invalid/framed.png']);
  }, 60_000);

  it('an interrupted page fails, and its browser is killed and replaced', async () => {
    await renderPdf(htmlSource('<p>warm</p>'), path.join(dir, 'warm.pdf'), PDF, context());
    const before = chromiumPoolStatus()!.instances[0]!.pid!;
    const stop = new AbortController();
    // Interrupted once the page is loading (a fixed delay could land before the browser was leased, on a busy
    // machine, and interrupt nothing).
    const seen: string[] = [];
    const source = htmlSource('<p>never ready</p>', seen);
    const waiting = renderPdf(
      source,
      path.join(dir, 'never.pdf'),
      { ...PDF, waitFor: { kind: 'selector', selector: '#never' } },
      context(60_000, stop.signal),
    );
    const failed = waiting.catch((err: unknown) => err);
    await vi.waitUntil(() => seen.length > 0, { timeout: 30_000, interval: 20 });
    stop.abort(new Error('stopped'));
    expect(await failed).toBeInstanceOf(Error);
    expect(chromiumPoolStatus()!.restarts).toBe(1);
    // The kill runs while the run's failure travels on.
    await vi.waitUntil(() => !isProcessAlive(before), { timeout: 15_000, interval: 50 });
  }, 90_000);

  it('a page whose script never ends fails within the deadline, and its browser is replaced', async () => {
    await renderPdf(htmlSource('<p>warm</p>'), path.join(dir, 'warm2.pdf'), PDF, context());
    const before = chromiumPoolStatus()!.instances[0]!.pid!;
    const failure = await renderPdf(
      htmlSource('<p>spinning</p><script>for (;;) {}</script>'),
      path.join(dir, 'spin.pdf'),
      PDF,
      context(6_000),
    ).catch((err: Error) => err);
    expect(failure).toBeInstanceOf(PluginError);
    expect((failure as Error).message).toBe('The page did not finish loading in time');
    await vi.waitUntil(() => !isProcessAlive(before), { timeout: 15_000, interval: 50 });
    // The next document gets a working browser.
    await renderPdf(htmlSource('<p>after the hang</p>'), path.join(dir, 'after.pdf'), PDF, context());
    expect((await runProcess('pdftotext', [path.join(dir, 'after.pdf'), '-'], { timeoutMs: 10_000 })).stdout).toContain(
      'after the hang',
    );
  }, 90_000);

  it('a selector that never appears fails within the deadline with a plain reason', async () => {
    const failure = await renderPdf(
      htmlSource('<p>no such element</p>'),
      path.join(dir, 'late.pdf'),
      { ...PDF, waitFor: { kind: 'selector', selector: '#late' } },
      context(5_000),
    ).catch((err: Error) => err);
    expect(failure).toBeInstanceOf(PluginError);
    expect((failure as Error).message).toBe('The page never showed the element named by waitFor');
  }, 60_000);
});

describe('Chromium in a jail', async () => {
  const jailable = (await probeConfinement()).ok;
  let dir: string;
  beforeAll(async () => {
    configureConfinement(jailable);
    await closeChromiumPool();
    configureChromiumPool({ size: 1, maxPages: 100, maxRssMb: 2_000 });
    // A stand-in for DATA_DIR: a folder of the service the browser must not see.
    dir = await mkdtemp(path.join(process.cwd(), '.chromium-jail-test-'));
    await writeFile(path.join(dir, 'secret.txt'), 'SECRET-OF-THE-SERVICE');
  });
  afterAll(async () => {
    await closeChromiumPool();
    configureConfinement(false);
    await rm(dir, { recursive: true, force: true });
  });

  /** pdftotext is jailed too here: it sees the test's folder as a run's. */
  const pdfText = async (file: string) =>
    (await withEngineScope({ writable: [dir] }, () => runProcess('pdftotext', [file, '-'], { timeoutMs: 10_000 })))
      .stdout;
  /**
   * Not a zombie: the jail's own pid 1 is reparented to the host's init when its bwrap dies, and
   * stays a zombie (dead, holding nothing) until that init reaps it.
   */
  const isRunning = async (pid: number) => {
    const state = /\) (\S)/.exec(await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => ''))?.[1];
    return state !== undefined && state !== 'Z';
  };
  /** The browser's processes (the jail's bwrap and everything under it). */
  const browserTree = async () => (await processTree(chromiumPoolStatus()!.instances[0]!.pid!)).map((p) => p.pid);

  it.skipIf(!jailable)(
    "renders, in its own network namespace, without a view of the service's folders",
    async () => {
      const output = path.join(dir, 'jailed.pdf');
      const secret = pathToFileURL(path.join(dir, 'secret.txt')).href;
      const page =
        `<h1>Jailed page</h1><iframe src="${secret}"></iframe><iframe src="file:///etc/hostname"></iframe>
      <pre id="out"></pre><script>fetch(${JSON.stringify(secret)}).then((r) => r.text()).then((t) =>` +
        ` (document.getElementById('out').textContent = t), () => {})</script>`;
      // The PDF itself goes to a folder the jail cannot see: it is written from Node.
      await renderPdf(htmlSource(page), output, PDF, context());
      const text = await pdfText(output);
      expect(text).toContain('Jailed page');
      expect(text).not.toContain('SECRET-OF-THE-SERVICE');

      const pids = await browserTree();
      const chromiumPids = [];
      for (const pid of pids)
        if ((await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '')).trim().startsWith('chrom'))
          chromiumPids.push(pid);
      expect(chromiumPids.length).toBeGreaterThan(1);
      const ownNet = await readlink('/proc/self/ns/net');
      for (const pid of chromiumPids) {
        // The finished document's renderer may exit meanwhile (its context closes after the result).
        // An exiting process drops its namespaces before it turns zombie: give it a moment to end.
        const net = await readlink(`/proc/${pid}/ns/net`).catch(() => undefined);
        if (net === undefined) {
          for (let tries = 0; tries < 100 && (await isRunning(pid)); tries++)
            await new Promise((r) => setTimeout(r, 20));
          expect(await isRunning(pid)).toBe(false);
          continue;
        }
        expect(net).not.toBe(ownNet);
        // The browser's filesystem: the system and fonts, not the service's folders.
        expect(existsSync(`/proc/${pid}/root/usr/share/fonts`)).toBe(true);
        expect(existsSync(`/proc/${pid}/root${dir}`)).toBe(false);
      }
    },
    60_000,
  );

  it.skipIf(!jailable)(
    "a hung page's browser is killed with its whole jail",
    async () => {
      await renderPdf(htmlSource('<p>warm</p>'), path.join(dir, 'warm.pdf'), PDF, context());
      const before = await browserTree();
      expect(before.length).toBeGreaterThan(2);
      const failure = await renderPdf(
        htmlSource('<p>spinning</p><script>for (;;) {}</script>'),
        path.join(dir, 'spin.pdf'),
        PDF,
        context(6_000),
      ).catch((err: Error) => err);
      expect(failure).toBeInstanceOf(PluginError);
      const running = async () => {
        const left = [];
        for (const pid of before) if (await isRunning(pid)) left.push(pid);
        return left;
      };
      await vi
        .waitUntil(async () => (await running()).length === 0, { timeout: 15_000, interval: 100 })
        .catch(() => undefined);
      expect(await running()).toEqual([]);
      await renderPdf(htmlSource('<p>after the hang</p>'), path.join(dir, 'after.pdf'), PDF, context());
      expect(await pdfText(path.join(dir, 'after.pdf'))).toContain('after the hang');
    },
    90_000,
  );
});

describe('killing a browser', () => {
  /** A process group like a browser's: a shell leading it and a child that outlives nothing. */
  const startGroup = () => {
    const leader = spawn('sh', ['-c', 'sleep 60 & wait'], { detached: true, stdio: 'ignore' });
    return { leader, exited: once(leader, 'exit').then(() => undefined) };
  };

  it('kills the process group and waits for its exit', async () => {
    const { leader, exited } = startGroup();
    expect(await killGroupWithin(leader.pid, exited, 5_000)).toBe(true);
    expect(isProcessAlive(leader.pid!)).toBe(false);
  });

  it('stops waiting after the grace when the exit is never seen, the group killed anyway', async () => {
    const { leader, exited } = startGroup();
    const children = async () => (await processTree(leader.pid!)).filter((p) => p.pid !== leader.pid);
    for (let tries = 0; tries < 100 && (await children()).length === 0; tries++)
      await new Promise((r) => setTimeout(r, 20));
    const [sleeper] = await children();
    expect(sleeper).toBeDefined();
    const started = Date.now();
    // An exit event that never comes (a lost 'disconnected', a pipe held open elsewhere).
    expect(await killGroupWithin(leader.pid, new Promise<void>(() => {}), 300)).toBe(false);
    expect(Date.now() - started).toBeLessThan(5_000);
    await exited;
    expect(isProcessAlive(leader.pid!)).toBe(false);
    // Dead (a zombie until whoever inherited it reaps it), not sleeping.
    const state = /\) (\S)/.exec(await readFile(`/proc/${sleeper?.pid}/stat`, 'utf8').catch(() => ') X'))?.[1];
    expect(['Z', 'X']).toContain(state);
  });
});

describe('failsOnStatus', () => {
  it("reads a list as Gotenberg's failOnHttpStatusCodes: X99 is its whole class, any other code itself", () => {
    expect([399, 400, 404, 499, 500, 599, 600].map((status) => failsOnStatus(status, [499, 599]))).toEqual([
      false,
      true,
      true,
      true,
      true,
      true,
      false,
    ]);
    expect(failsOnStatus(404, [404])).toBe(true);
    expect(failsOnStatus(403, [404])).toBe(false);
    expect(failsOnStatus(302, [399])).toBe(true);
    expect(failsOnStatus(500, [])).toBe(false);
  });
});
