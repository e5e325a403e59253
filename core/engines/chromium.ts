/**
 * Debian's headless Chromium (`chromium-headless-shell`: Chromium's headless-only build, the one Playwright itself
 * runs for headless pages), driven with playwright-core (never a downloaded browser), kept warm by the
 * supervisor: one browser per process that renders (a sandbox process runs one job at a time, so
 * one browser serves it), a fresh browser context per page, recycled after `maxPages` pages or
 * past `maxRssMb`, killed with its process group when it hangs or a run is interrupted.
 *
 * Why per sandbox process and not per server (as LibreOffice): the browser is then inside the
 * run's process tree, so the run's deadline, memory cap and kill apply to it without an IPC
 * protocol, and request routing (the offline rule, outbound checks) runs next to the plugin that
 * knows the document's assets. Cost: one browser (~150-250 MB) per sandbox process that has
 * rendered a page, given back when the sandbox is recycled or the browser idles (see IDLE_CLOSE_MS).
 *
 * Confinement: when engines are confined, Chromium runs in a bubblewrap jail (jailedChromium):
 * no network namespace access, no view of DATA_DIR or job folders.
 *
 * Network: Chromium itself can reach nothing. Every request of a page is intercepted with
 * Playwright routing and answered from Node (`PageSource.fetch`: the ZIP's assets, or a fetch made
 * by the caller under the outbound address policy with a pinned connection), or refused. What
 * routing does not see (WebSockets, WebRTC, a request slipping past) goes to a proxy at a closed
 * loopback port, loopback included (`<-loopback>`), so it fails instead of leaving the machine.
 */
import { createHash } from 'node:crypto';
import {
  access,
  chmod,
  constants,
  lstat,
  mkdir,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
// Types only here: playwright-core is loaded on the first page, in the process that renders (never the server's).
import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { PluginError, type EngineRequirement } from '../contract/index.js';
import type { EngineContext } from './common.js';
import { confined, confinementEnabled } from './confine.js';
import { FONT_PACKAGES } from './fonts.js';
import { resolveCommand } from './paths.js';
import { isProcessAlive, killGroup, processTree } from './execution/process-tree.js';
import { Supervisor, type SupervisedInstance } from './execution/supervisor.js';
import { withSpan } from '../telemetry/tracing.js';

/**
 * The headless shell, not the full browser: the full browser's headless mode opens a real browser window per context
 * (tab strip, address bar, profile services), which cost about half of a warm document's CPU and latency
 * (bench/RESULTS.md, "The headless shell"). `CHROMIUM_HEADLESS_SHELL_PATH` may point at another Chromium build,
 * the full browser included.
 */
export const CHROMIUM: EngineRequirement = {
  command: 'chromium-headless-shell',
  // Fonts: a Debian chromium without any font renders tofu; these cover every writing system (fonts.ts).
  debian: ['chromium-headless-shell', ...FONT_PACKAGES],
  license: 'BSD-3-Clause',
};

/**
 * Debian's /usr/bin/chromium-headless-shell is a shell script that runs this binary as its child (no exec): the
 * binary is run itself, so that the browser is Playwright's child and the process whose tree and memory are watched.
 */
const DEBIAN_HEADLESS_SHELL = '/usr/lib/chromium/chromium-headless-shell';

/** A loopback port nothing listens on (the discard port): the dead end for traffic routing did not answer. */
const DEAD_PROXY = 'http://127.0.0.1:9';
/** A browser left idle this long is closed, to give its memory back; the next page starts one. */
const IDLE_CLOSE_MS = 5 * 60_000;

/** The executable of `command` (its override, else Debian's binary, else on PATH): Playwright wants a path. */
async function findExecutable(command: string): Promise<string> {
  const name = resolveCommand(command);
  if (name === CHROMIUM.command && (await isExecutableFile(DEBIAN_HEADLESS_SHELL))) return DEBIAN_HEADLESS_SHELL;
  const candidates = name.includes('/')
    ? [name]
    : (process.env.PATH ?? '')
        .split(path.delimiter)
        .filter(Boolean)
        .map((dir) => path.join(dir, name));
  for (const candidate of candidates) if (await isExecutableFile(candidate)) return candidate;
  throw new PluginError('Chromium is not installed on this server');
}

async function isExecutableFile(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

/**
 * What playwright-core 1.65 switches off (its chromiumSwitches.ts). Chromium reads only the last --disable-features,
 * and Playwright puts its list before ours, so ours repeats it (chromium.test.ts checks it against the launched
 * browser's command line, for when Playwright is upgraded).
 */
const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
];

/**
 * Work every fresh context paid for and no document uses (bench/RESULTS.md, "one renderer per document"): the full
 * browser's headless mode opens each context's page in a browser window whose address bar preloads its suggestion
 * popup, a WebUI page (chrome://omnibox-popup.top-chrome) in a renderer process of its own, about 60% of a warm
 * document's CPU (the headless shell has no such window; the switch keeps a full Chromium set by path, and the cold
 * baseline, as light); and Chromium keeps a spare renderer warm for the context used last, which closes after its one
 * document, so the spare was started and thrown away each time. Without them a document costs one renderer, its own.
 */
const PER_CONTEXT_WASTE = [
  'WebUIOmniboxPopup',
  'WebUIOmniboxAimPopup',
  'WebUIOmniboxFullPopup',
  'SpareRendererForSitePerProcess',
];

export interface ChromiumCommand {
  executablePath: string;
  args: string[];
}

/**
 * The one place Chromium's command line is built. When this process's engines are confined
 * (configureConfinement), `executablePath` is a wrapper script that execs Chromium in a bubblewrap
 * jail (jailedChromium). Playwright adds --remote-debugging-pipe and a fresh --user-data-dir (a
 * temporary profile it removes on close) itself, after these arguments. `command` is another Chromium to run with the
 * same switches (the bench's cold baseline runs Debian's full `chromium`).
 */
export async function chromiumCommand(command = CHROMIUM.command): Promise<ChromiumCommand> {
  const chromium = await findExecutable(command);
  return {
    executablePath: confinementEnabled() ? await jailedChromium(chromium) : chromium,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-default-apps',
      '--disable-extensions',
      '--mute-audio',
      '--disable-dev-shm-usage',
      '--font-render-hinting=none',
      `--proxy-server=${DEAD_PROXY}`,
      '--proxy-bypass-list=<-loopback>',
      '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
      '--webrtc-ip-handling-policy=disable_non_proxied_udp',
      `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...PER_CONTEXT_WASTE].join(',')}`,
    ],
  };
}

/**
 * Stands for the profile folder in the jail's arguments; the wrapper puts the real one (from Playwright's
 * --user-data-dir) in its place.
 */
const PROFILE_PLACEHOLDER = '/transmute-chromium-profile';
/** What Debian's /usr/bin/chromium launcher reads besides the system. */
const CHROMIUM_CONFIG = ['/etc/chromium.d', '/etc/chromium'];
let wrapper: { script: string; file: Promise<string> } | undefined;

const shellQuote = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;

/**
 * A wrapper script (in a private folder of the system's temp folder named after its content)
 * that execs `bwrap ... chromium "$@"`: no network namespace access (Playwright talks to the
 * browser over its pipe, inherited file descriptors), the system and fonts read-only, a private
 * /tmp, and only the profile Playwright made writable. The wrapper execs, so the pid Playwright
 * sees is bwrap's, in the process group it kills; --die-with-parent takes the jail with it.
 */
function jailedChromium(chromium: string): Promise<string> {
  const jail = confined(chromium, [], { writable: [PROFILE_PLACEHOLDER], readable: CHROMIUM_CONFIG, cwd: '/tmp' });
  const bwrap = [jail.file, ...jail.args]
    .map((arg) => (arg === PROFILE_PLACEHOLDER ? '"$profile"' : shellQuote(arg)))
    .join(' ');
  const script = [
    '#!/bin/sh',
    '# Chromium in a bubblewrap jail (core/engines/chromium.ts, jailedChromium).',
    'profile=/nonexistent',
    'for arg in "$@"; do',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, not a template
    '  case "$arg" in --user-data-dir=*) profile="${arg#--user-data-dir=}" ;; esac',
    'done',
    `exec ${bwrap} "$@"`,
    '',
  ].join('\n');
  // The same script while the binary and the jail (the fonts set-up included) are the same.
  if (wrapper?.script === script) return wrapper.file;
  const file = writeWrapper(script);
  wrapper = { script, file };
  file.catch(() => (wrapper = undefined));
  return file;
}

/**
 * Writes `script` once per content and user, shared by every process (a sandbox process killed
 * at a deadline leaves nothing behind): a folder only this user can write, the script renamed into
 * place whole. A folder of that name someone else made, or that others can write to, is refused.
 */
async function writeWrapper(script: string): Promise<string> {
  const digest = createHash('sha256').update(script).digest('hex').slice(0, 16);
  const dir = path.join(os.tmpdir(), `transmute-chromium-jail-${process.getuid?.() ?? 0}-${digest}`);
  await mkdir(dir, { mode: 0o700 }).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST') throw err;
  });
  const folder = await lstat(dir);
  if (!folder.isDirectory() || folder.uid !== (process.getuid?.() ?? folder.uid) || (folder.mode & 0o022) !== 0) {
    throw new PluginError('Chromium could not be started in its jail (unsafe wrapper folder)');
  }
  const target = path.join(dir, 'chromium');
  if ((await readFile(target, 'utf8').catch(() => undefined)) === script) return target;
  const partial = `${target}.${process.pid}`;
  await writeFile(partial, script, { mode: 0o700 });
  await chmod(partial, 0o700);
  await rename(partial, target);
  return target;
}

/** Marks a profile Playwright made for one of our browsers, with the pid of the process that owns it. */
const OWNER_FILE = 'transmute-owner';
const PROFILE_PREFIX = 'playwright_chromiumdev_profile-';
let orphansSwept = false;

/**
 * Profiles of browsers whose owner died without closing them (a sandbox process killed at a
 * deadline): Playwright removes a profile on close only. Ours carry OWNER_FILE; others are left alone.
 */
async function removeOrphanProfiles(): Promise<void> {
  if (orphansSwept) return;
  orphansSwept = true;
  for (const entry of await readdir(os.tmpdir()).catch(() => [] as string[])) {
    if (!entry.startsWith(PROFILE_PREFIX)) continue;
    const dir = path.join(os.tmpdir(), entry);
    const owner = Number(await readFile(path.join(dir, OWNER_FILE), 'utf8').catch(() => ''));
    if (owner && !isProcessAlive(owner)) await rm(dir, { recursive: true, force: true });
  }
}

/** The profile Playwright gave the browser (from its command line), marked as this process's. */
async function markProfile(pid: number | undefined): Promise<void> {
  const cmdline = pid ? await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '') : '';
  const dir = /--user-data-dir=([^\0]+)/.exec(cmdline)?.[1];
  if (dir && path.basename(dir).startsWith(PROFILE_PREFIX))
    await writeFile(path.join(dir, OWNER_FILE), String(process.pid)).catch(() => undefined);
}

/**
 * The browser this process just launched: its direct child that leads its own process group (Playwright
 * starts it detached) and runs on a profile Playwright made, started after `before` was listed.
 */
async function launchedBrowserPid(before: ReadonlySet<number>): Promise<number | undefined> {
  for (const proc of await processTree(process.pid)) {
    if (proc.ppid !== process.pid || proc.pgid !== proc.pid || before.has(proc.pid)) continue;
    const cmdline = await readFile(`/proc/${proc.pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(`--user-data-dir=${path.join(os.tmpdir(), PROFILE_PREFIX)}`)) return proc.pid;
  }
  return undefined;
}

/** How long a killed browser's processes may take to be gone before kill() stops waiting. */
export const KILL_GRACE_MS = 3_000;

/**
 * SIGKILL the process group `pid` leads, then wait for `exited` at most `graceMs`: a browser whose
 * pipe or exit is never seen (a process stuck in the kernel, a lost event) must not hold up its
 * replacement or a shutdown. Past the grace the group is sent SIGKILL once more, and the caller goes
 * on; whether it settled in time is the result.
 */
export async function killGroupWithin(pid: number | undefined, exited: Promise<void>, graceMs: number) {
  killGroup(pid);
  let timer: NodeJS.Timeout | undefined;
  const settled = await Promise.race([
    exited.then(() => true),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), graceMs).unref())),
  ]);
  clearTimeout(timer);
  if (!settled) killGroup(pid);
  return settled;
}

/**
 * One warm browser, launched by Playwright in this process and driven over its pipe. Not through
 * launchServer + connect: that puts a WebSocket hop (and a second protocol layer, with every PDF
 * sent through both in base64) between this process and the browser, a fifth of a warm render's CPU.
 */
class ChromiumBrowser implements SupervisedInstance {
  readonly exited: Promise<void>;
  private constructor(
    readonly browser: Browser,
    readonly pid: number | undefined,
  ) {
    this.exited = new Promise<void>((resolve) => {
      if (!browser.isConnected()) resolve();
      else browser.once('disconnected', () => resolve());
    });
  }

  static async start(signal: AbortSignal): Promise<ChromiumBrowser> {
    const command = await chromiumCommand();
    await removeOrphanProfiles();
    const { chromium } = await import('playwright-core');
    const before = new Set((await processTree(process.pid)).map((p) => p.pid));
    const browser = await chromium.launch({
      executablePath: command.executablePath,
      args: command.args,
      headless: true,
      chromiumSandbox: false,
      // The host process decides when to stop: Playwright must not kill the browser on our signals.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      timeout: 30_000,
    });
    const pid = await launchedBrowserPid(before);
    try {
      await markProfile(pid);
      signal.throwIfAborted();
      return new ChromiumBrowser(browser, pid);
    } catch (err) {
      killGroup(pid);
      await browser.close().catch(() => undefined);
      throw err;
    }
  }

  /**
   * A context and page opened ahead for the next document (never used by a previous one): a new
   * page costs a renderer process, the largest part of a warm render, so it is made between
   * documents instead of on the next one's clock.
   */
  private spare: Promise<{ context: BrowserContext; page: Page }> | undefined;

  private async openContext(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await this.browser.newContext({ serviceWorkers: 'block', acceptDownloads: false });
    try {
      return { context, page: await context.newPage() };
    } catch (err) {
      await context.close().catch(() => undefined);
      throw err;
    }
  }

  /** A fresh context with one blank page: the spare if there is one, else a new one. */
  async freshPage(): Promise<{ context: BrowserContext; page: Page }> {
    const spare = await this.spare?.catch(() => undefined);
    this.spare = undefined;
    return spare ?? this.openContext();
  }

  prepareSpare(): void {
    this.spare ??= this.openContext();
    this.spare.catch(() => (this.spare = undefined));
  }

  async ping(): Promise<void> {
    const context = await this.browser.newContext();
    await context.close();
  }

  async kill(): Promise<void> {
    // Playwright starts Chromium in a process group of its own: renderers and helpers die with it.
    // Playwright sees the pipe close and removes the profile; close() is for a pid not found.
    if (!this.pid) await this.browser.close().catch(() => undefined);
    if (!(await killGroupWithin(this.pid, this.exited, KILL_GRACE_MS)))
      console.warn('chromium: a killed browser was still not gone', { pid: this.pid });
  }
}

export interface ChromiumPoolSettings {
  /** Browsers per process (a sandbox process renders one page at a time: 1). */
  size: number;
  /** A browser is replaced after this many pages... */
  maxPages: number;
  /** ...or past this much memory (proportional set size of the browser, renderers and helpers). */
  maxRssMb: number;
}

const DEFAULT_SETTINGS: ChromiumPoolSettings = { size: 1, maxPages: 100, maxRssMb: 600 };
let settings = DEFAULT_SETTINGS;
let pool: Supervisor<ChromiumBrowser> | undefined;
let idleTimer: NodeJS.Timeout | undefined;

/** Set before the first page (a process's start-up); later calls apply once the current pool is closed. */
export function configureChromiumPool(overrides: Partial<ChromiumPoolSettings>): void {
  settings = { ...settings, ...overrides };
}

function chromiumPool(): Supervisor<ChromiumBrowser> {
  pool ??= new Supervisor<ChromiumBrowser>({
    name: 'chromium',
    size: settings.size,
    start: (_slot, signal) => ChromiumBrowser.start(signal),
    maxUses: settings.maxPages,
    maxRssMb: settings.maxRssMb,
    // Each read walks every page table of every Chromium process (their RSS sum always passes the
    // ceiling); contexts close after each page, so a browser grows slowly, and a run's own growth
    // meets the run's memory cap.
    measureEvery: { uses: 10, ms: 30_000 },
    healthCheckMs: 30_000,
    pingTimeoutMs: 10_000,
    log: {
      debug() {},
      info() {},
      warn: (msg, data) => console.warn(msg, data ?? ''),
      error: (msg, data) => console.error(msg, data ?? ''),
    },
  });
  return pool;
}

/** The process's pool, for status and tests. */
export function chromiumPoolStatus() {
  return pool?.status();
}

/** Stop this process's browsers (tests, shutdown). */
export async function closeChromiumPool(): Promise<void> {
  clearTimeout(idleTimer);
  const current = pool;
  pool = undefined;
  await current?.close();
}

/** What a page may load: answered from Node, or refused (undefined). data: URLs never reach it. */
export interface PageSource {
  /** The document's address (for a ZIP, a made-up origin its assets are served under). */
  url: string;
  fetch(request: {
    url: string;
    method: string;
    headers: Record<string, string>;
    isNavigation: boolean;
  }): Promise<FetchedResource | undefined>;
}

export interface FetchedResource {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** When the page counts as ready: an event, a CSS selector to appear, or a delay in ms (at most 10 s). */
export type WaitFor =
  | { kind: 'load' }
  | { kind: 'networkidle' }
  | { kind: 'selector'; selector: string }
  | { kind: 'delay'; ms: number };

/** What failOnHttpStatusCodes is when not given: every client and server error (Gotenberg's default). */
export const DEFAULT_FAIL_ON_HTTP_STATUS_CODES: readonly number[] = [499, 599];

/**
 * Whether `status` is in `codes`, read as Gotenberg reads failOnHttpStatusCodes: a code is itself, and an `X99`
 * entry (199, 299, 399, 499, 599) also stands for its whole class, X00 to X99.
 */
export function failsOnStatus(status: number, codes: readonly number[]): boolean {
  return codes.some((code) => code === status || (code % 100 === 99 && status >= code - 99 && status <= code));
}

export interface PageOptions {
  waitFor: WaitFor;
  /**
   * Statuses of the document's own response that fail the page (see failsOnStatus); default: every status from 400
   * to 599.
   */
  failOnHttpStatusCodes?: readonly number[];
  /** An exception the page's scripts throw (uncaught) fails the page, naming it. */
  failOnConsoleExceptions?: boolean;
  /** The CSS media type the page is laid out for (Chromium prints for `print` unless told otherwise). */
  media?: 'print' | 'screen';
  /** CSS px; images and URL rendering. */
  viewport?: { width: number; height: number };
  /** Tells about refused requests (for logs). */
  onBlocked?(url: string): void;
  /** The document title when the page has none (else Chromium puts the page's address in the PDF's metadata). */
  fallbackTitle?: string;
}

export interface PdfRenderOptions extends PageOptions {
  format: 'A4' | 'Letter' | 'Legal' | 'A3' | 'A5';
  landscape: boolean;
  /** mm */
  margin: { top: number; right: number; bottom: number; left: number };
  scale: number;
  printBackground: boolean;
  headerHtml?: string;
  footerHtml?: string;
  /** A document outline (bookmarks) from the headings; Chromium builds it from the tags, so it implies `tagged`. */
  outline?: boolean;
  /** A tagged (structured, accessible) PDF. */
  tagged?: boolean;
  /** The page size of the document's CSS `@page { size }` wins over `format` and `landscape`. */
  preferCssPageSize?: boolean;
}

export interface ImageRenderOptions extends PageOptions {
  type: 'png' | 'jpeg';
  fullPage: boolean;
}

const EVERY_URL = /^/;

/** Open the document in a fresh context of a warm browser, wait as asked, and hand the page to `work`. */
async function withPage<R>(
  source: PageSource,
  options: PageOptions,
  ctx: EngineContext,
  work: (page: Page, timeoutMs: number) => Promise<R>,
): Promise<R> {
  ctx.signal.throwIfAborted();
  clearTimeout(idleTimer);
  const lease = await withSpan('chromium.acquire', {}, () => chromiumPool().acquire(ctx.signal));
  let broken: string | undefined;
  let context: BrowserContext | undefined;
  const onAbort = () => void context?.close().catch(() => undefined);
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  try {
    const fresh = await withSpan('chromium.context', {}, () => lease.instance.freshPage());
    context = fresh.context;
    const page = fresh.page;
    // Before the first request: nothing is loaded without passing through answer(). A regular expression matching
    // every URL, not the glob '**/*', which Playwright turns into a regular expression again at every request, on
    // both of its sides (a function is sent to its server side as that glob).
    await context.route(EVERY_URL, (route) => answer(route, source, options));
    if (options.viewport) await page.setViewportSize(options.viewport);
    if (options.media) await page.emulateMedia({ media: options.media });
    const exceptions: Error[] = [];
    if (options.failOnConsoleExceptions) page.on('pageerror', (error) => exceptions.push(error));
    const timeoutMs = () => Math.max(1_000, ctx.remainingMs() - 2_000);
    page.setDefaultTimeout(timeoutMs());
    const waitUntil = options.waitFor.kind === 'networkidle' ? 'networkidle' : 'load';
    await withSpan('chromium.load', {}, async () => {
      const response = await page.goto(source.url, { waitUntil, timeout: timeoutMs() });
      const failOn = options.failOnHttpStatusCodes ?? DEFAULT_FAIL_ON_HTTP_STATUS_CODES;
      if (response && failsOnStatus(response.status(), failOn)) {
        const text = response
          .statusText()
          .replace(/[^\x20-\x7e]/g, '')
          .slice(0, 80);
        throw new PluginError(
          `The page answered HTTP ${response.status()}${text ? ` ${text}` : ''}, a status in failOnHttpStatusCodes ` +
            `(${JSON.stringify(failOn)})`,
        );
      }
      if (options.waitFor.kind === 'selector')
        await page.waitForSelector(options.waitFor.selector, { state: 'attached', timeout: timeoutMs() });
      if (options.waitFor.kind === 'delay') await page.waitForTimeout(options.waitFor.ms);
      if (options.fallbackTitle)
        await page.evaluate((title) => {
          document.title ||= title;
        }, options.fallbackTitle);
    });
    const [exception] = exceptions;
    if (exception) throw new PluginError(describeException(exception, exceptions.length));
    return await withSpan('chromium.output', {}, () => work(page, timeoutMs()));
  } catch (err) {
    // A page that hung or was interrupted may have left the browser busy: it is not reused.
    if (ctx.signal.aborted) broken = 'the run was interrupted';
    else if (isTimeout(err)) broken = 'a page timed out';
    ctx.signal.throwIfAborted();
    throw translate(err);
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
    const released = withSpan('chromium.release', {}, async () => {
      const closed = context?.close().catch(() => undefined);
      if (!broken) lease.instance.prepareSpare();
      await Promise.all([closed, lease.release(broken ? { broken } : {})]);
    });
    // A healthy browser's context closes, and its memory is measured, while the result travels on;
    // the next page waits for the lease, never for this. A broken one is killed before the run fails.
    if (broken) await released;
    else released.catch(() => undefined);
    idleTimer = setTimeout(() => void closeChromiumPool(), IDLE_CLOSE_MS).unref();
  }
}

/**
 * The page's first uncaught exception in one line (its own words, which the client's page or the site wrote; no
 * stack, which would show Playwright's frames).
 */
function describeException(exception: Error, count: number): string {
  const what = `${exception.name || 'Error'}: ${exception.message}`.replace(/\s+/g, ' ').trim().slice(0, 300);
  const more = count > 1 ? ` (and ${count - 1} more)` : '';
  return `The page threw an exception (failOnConsoleExceptions): ${what}${more}`;
}

const isTimeout = (err: unknown) =>
  err instanceof PluginError
    ? /in time/.test(err.message)
    : /Timeout \d+ms exceeded/.test((err as Error)?.message ?? '');

/** Playwright's errors carry call logs and internals: the client reads one plain sentence. */
function translate(err: unknown): unknown {
  if (err instanceof PluginError) return err;
  const message = (err as Error).message ?? String(err);
  if (/Timeout \d+ms exceeded/.test(message)) {
    return new PluginError(
      /waitForSelector|waiting for locator/.test(message)
        ? 'The page never showed the element named by waitFor'
        : 'The page did not finish loading in time',
      { cause: err },
    );
  }
  if (/net::ERR_/.test(message))
    return new PluginError(`The page could not be loaded (${/net::(ERR_[A-Z_]+)/.exec(message)?.[1]})`, { cause: err });
  return err;
}

async function answer(route: Route, source: PageSource, options: PageOptions): Promise<void> {
  const request = route.request();
  let resource: FetchedResource | undefined;
  try {
    resource = await source.fetch({
      url: request.url(),
      method: request.method(),
      headers: request.headers(),
      isNavigation: request.isNavigationRequest(),
    });
  } catch {
    resource = undefined;
  }
  if (!resource) {
    options.onBlocked?.(request.url());
    return route.abort('blockedbyclient').catch(() => undefined);
  }
  await route
    .fulfill({ status: resource.status, headers: resource.headers, body: resource.body })
    .catch(() => undefined);
}

/**
 * Print the page to `output` (PDF). Header and footer templates may use the classes pageNumber, totalPages, date,
 * title, url.
 */
export async function renderPdf(
  source: PageSource,
  output: string,
  options: PdfRenderOptions,
  ctx: EngineContext,
): Promise<void> {
  await withPage(source, options, ctx, async (page, timeoutMs) => {
    const mm = (value: number) => `${value}mm`;
    const headerFooter = options.headerHtml !== undefined || options.footerHtml !== undefined;
    await withTimeout(
      page.pdf({
        path: output,
        format: options.format,
        landscape: options.landscape,
        scale: options.scale,
        printBackground: options.printBackground,
        margin: {
          top: mm(options.margin.top),
          right: mm(options.margin.right),
          bottom: mm(options.margin.bottom),
          left: mm(options.margin.left),
        },
        preferCSSPageSize: options.preferCssPageSize ?? false,
        // Chromium builds the outline from the structure tree: no tags, no bookmarks.
        tagged: (options.tagged ?? false) || (options.outline ?? false),
        outline: options.outline ?? false,
        displayHeaderFooter: headerFooter,
        // An empty template hides Chromium's default (date and title) on the side not given.
        ...(headerFooter
          ? {
              headerTemplate: options.headerHtml ?? '<span></span>',
              footerTemplate: options.footerHtml ?? '<span></span>',
            }
          : {}),
      }),
      timeoutMs,
    ).catch((err: unknown) => {
      // Chromium gives no reason; with templates they are the likely cause, and the client's to change.
      if (headerFooter && /Printing failed/.test((err as Error)?.message ?? ''))
        throw new PluginError('The page could not be printed with this headerHtml or footerHtml', { cause: err });
      throw err;
    });
  });
}

/** A screenshot of the page to `output` (PNG or JPEG). */
export async function renderImage(
  source: PageSource,
  output: string,
  options: ImageRenderOptions,
  ctx: EngineContext,
): Promise<void> {
  await withPage(source, options, ctx, async (page, timeoutMs) => {
    await page.screenshot({
      path: output,
      type: options.type,
      fullPage: options.fullPage,
      timeout: timeoutMs,
      ...(options.type === 'jpeg' ? { quality: 90 } : {}),
    });
  });
}

function withTimeout<R>(work: Promise<R>, timeoutMs: number): Promise<R> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work,
    new Promise<never>(
      (_, reject) =>
        (timer = setTimeout(() => reject(new PluginError('The page could not be printed in time')), timeoutMs)),
    ),
  ]).finally(() => clearTimeout(timer));
}
