/**
 * Debian's headless Chromium (`chromium-headless-shell`: Chromium's headless-only build, the one Playwright itself
 * runs for headless pages), driven over its DevTools pipe (cdp.ts; never a downloaded browser), kept warm by the
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
 * Network: Chromium itself can reach nothing. Every request of a page is paused by the
 * protocol's Fetch domain and answered from Node (`PageSource.fetch`: the ZIP's assets, or a fetch made
 * by the caller under the outbound address policy with a pinned connection), or refused. What
 * routing does not see (WebSockets, WebRTC, a request slipping past) goes to a proxy at a closed
 * loopback port, loopback included (`<-loopback>`), so it fails instead of leaving the machine.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  access,
  chmod,
  constants,
  lstat,
  mkdir,
  mkdtemp,
  open,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises';
import { STATUS_CODES } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { PluginError, type EngineRequirement } from '../contract/index.js';
import { CdpClosedError, CdpConnection, type Message } from './cdp.js';
import type { EngineContext } from './common.js';
import { confined, confinementEnabled } from './confine.js';
import { FONT_PACKAGES } from './fonts.js';
import { resolveCommand } from './paths.js';
import { isProcessAlive, killGroup } from './execution/process-tree.js';
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
 * binary is run itself, so that the browser is this process's child and the process whose tree and memory are watched.
 */
const DEBIAN_HEADLESS_SHELL = '/usr/lib/chromium/chromium-headless-shell';

/** A loopback port nothing listens on (the discard port): the dead end for traffic routing did not answer. */
const DEAD_PROXY = 'http://127.0.0.1:9';
/** A browser left idle this long is closed, to give its memory back; the next page starts one. */
const IDLE_CLOSE_MS = 5 * 60_000;

/** The executable of `command` (its override, else Debian's binary, else on PATH): spawned by path. */
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
 * What playwright-core 1.65 passed before our arguments to every browser it launched (its chromiumSwitches and
 * headless switches, its --disable-features aside), kept when this module took over the launch so that pages lay
 * out, print and behave as they did. The warm browser's only: the bench's cold prints run chromiumCommand alone.
 */
const PLAYWRIGHT_SWITCHES = [
  '--disable-field-trial-config',
  '--disable-background-networking',
  '--disable-background-timer-throttling',
  '--disable-backgrounding-occluded-windows',
  '--disable-back-forward-cache',
  '--disable-breakpad',
  '--disable-component-extensions-with-background-pages',
  '--disable-component-update',
  '--no-default-browser-check',
  '--disable-default-apps',
  '--disable-dev-shm-usage',
  '--disable-edgeupdater',
  '--disable-extensions',
  '--enable-features=CDPScreenshotNewSurface,SkipListAccountsWithoutGaiaCookies',
  '--allow-pre-commit-input',
  '--disable-hang-monitor',
  '--disable-ipc-flooding-protection',
  '--disable-popup-blocking',
  '--disable-prompt-on-repost',
  '--disable-renderer-backgrounding',
  '--disable-updater-scheduler',
  '--force-color-profile=srgb',
  '--metrics-recording-only',
  '--no-first-run',
  '--password-store=basic',
  '--use-mock-keychain',
  '--no-service-autorun',
  '--disable-search-engine-choice-screen',
  '--unsafely-disable-devtools-self-xss-warnings',
  '--enable-unsafe-swiftshader',
  '--edge-skip-compat-layer-relaunch',
  '--disable-stack-profiler',
  '--disable-infobars',
  '--disable-sync',
  '--do-not-de-elevate',
  '--headless',
  '--hide-scrollbars',
  '--mute-audio',
  '--blink-settings=primaryHoverType=2,availableHoverTypes=2,primaryPointerType=4,availablePointerTypes=4',
  '--no-sandbox',
];

/**
 * The features playwright-core 1.65 switched off (with its own --disable-features, before ours; Chromium reads only
 * the last one, so ours repeated the list, and still carries it).
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
 * jail (jailedChromium). The warm browser's launch puts PLAYWRIGHT_SWITCHES before these arguments, and
 * --remote-debugging-pipe and a fresh --user-data-dir (a temporary profile removed when the browser exits)
 * after. `command` is another Chromium to run with the same switches (the bench's cold baseline runs Debian's
 * full `chromium`).
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
 * Stands for the profile folder in the jail's arguments; the wrapper puts the real one (from the
 * --user-data-dir) in its place.
 */
const PROFILE_PLACEHOLDER = '/transmute-chromium-profile';
/** What Debian's /usr/bin/chromium launcher reads besides the system. */
const CHROMIUM_CONFIG = ['/etc/chromium.d', '/etc/chromium'];
let wrapper: { script: string; file: Promise<string> } | undefined;

const shellQuote = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;

/**
 * A wrapper script (in a private folder of the system's temp folder named after its content)
 * that execs `bwrap ... chromium "$@"`: no network namespace access (this process talks to the
 * browser over its pipe, inherited file descriptors), the system and fonts read-only, a private
 * /tmp, and only the profile made for it writable. The wrapper execs, so the pid this process
 * spawned is bwrap's, in the process group it kills; --die-with-parent takes the jail with it.
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

/** Marks a profile we made for one of our browsers, with the pid of the process that owns it. */
const OWNER_FILE = 'transmute-owner';
const PROFILE_PREFIX = 'transmute-chromium-profile-';
/** Profiles made by Playwright for our browsers before this module drove Chromium itself: swept the same way. */
const OLD_PROFILE_PREFIX = 'playwright_chromiumdev_profile-';
let orphansSwept = false;

/** A profile of ours without OWNER_FILE this old was left half-removed (its owner died while removing it). */
const OWNERLESS_PROFILE_MS = 60 * 60_000;

/**
 * Profiles of browsers whose owner died without closing them (a sandbox process killed at a
 * deadline): a profile is removed when its browser exits. Ours carry OWNER_FILE; others are left alone.
 */
async function removeOrphanProfiles(): Promise<void> {
  if (orphansSwept) return;
  orphansSwept = true;
  for (const entry of await readdir(os.tmpdir()).catch(() => [] as string[])) {
    if (!entry.startsWith(PROFILE_PREFIX) && !entry.startsWith(OLD_PROFILE_PREFIX)) continue;
    const dir = path.join(os.tmpdir(), entry);
    const owner = Number(await readFile(path.join(dir, OWNER_FILE), 'utf8').catch(() => ''));
    const ownerless =
      !owner &&
      entry.startsWith(PROFILE_PREFIX) &&
      Date.now() - ((await stat(dir).catch(() => undefined))?.mtimeMs ?? Date.now()) > OWNERLESS_PROFILE_MS;
    if ((owner && !isProcessAlive(owner)) || ownerless) await removeProfile(dir);
  }
}

/** Retried: a browser's last processes may still be writing into it for a moment after the leader's exit. */
const removeProfile = (dir: string) =>
  rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }).catch(() => undefined);

/** How long a killed browser's processes may take to be gone before kill() stops waiting. */
export const KILL_GRACE_MS = 3_000;
/** How long a browser may take to answer its first command. */
const LAUNCH_TIMEOUT_MS = 30_000;

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

/** The default font families Playwright set for headless pages on Linux: kept, so documents keep their fonts. */
const DEFAULT_FONT_FAMILIES = {
  fontFamilies: {
    standard: 'Times New Roman',
    fixed: 'Monospace',
    serif: 'Times New Roman',
    sansSerif: 'Arial',
    cursive: 'Comic Sans MS',
    fantasy: 'Impact',
  },
};
/** Playwright's default viewport, which screenshots without a viewport of their own keep. */
const DEFAULT_VIEWPORT = { width: 1280, height: 720 };
/** Service workers could answer a page's requests from a cache instead of routing: registration is refused. */
const BLOCK_SERVICE_WORKERS =
  'if (self.ServiceWorkerContainer) ServiceWorkerContainer.prototype.register = async () => {};';
/** Every URL, the navigation included (data: URLs are never intercepted). */
const EVERY_REQUEST = { patterns: [{ urlPattern: '*', requestStage: 'Request' }] };

/** A request paused by the Fetch domain in one of a page's sessions (its main frame, an out-of-process frame). */
export interface PausedRequest {
  session: string;
  requestId: string;
  url: string;
  method: string;
  headers: Record<string, string>;
  resourceType: string;
  frameId: string;
}

/**
 * A fresh browser context with one blank page, set up ahead of its document: every request of the page (and of
 * its out-of-process frames and workers, attached as they start) is paused for `onRequest`.
 */
export class ChromiumPage {
  /** Set by the document using the page; a request paused while none is set is refused. */
  onRequest: ((request: PausedRequest) => void) | undefined;
  private readonly removers: Array<() => void> = [];
  private disposed = false;

  private constructor(
    readonly cdp: CdpConnection,
    readonly contextId: string,
    readonly targetId: string,
    readonly session: string,
  ) {}

  static async open(cdp: CdpConnection): Promise<ChromiumPage> {
    const { browserContextId } = await cdp.send('Target.createBrowserContext', { disposeOnDetach: true });
    try {
      const [, { targetId }] = await Promise.all([
        cdp.send('Browser.setDownloadBehavior', { behavior: 'deny', browserContextId }),
        cdp.send('Target.createTarget', { url: 'about:blank', browserContextId }),
      ]);
      const { sessionId } = await cdp.send('Target.attachToTarget', { targetId, flatten: true });
      const page = new ChromiumPage(cdp, browserContextId, targetId, sessionId);
      await page.setUp(sessionId, true);
      return page;
    } catch (err) {
      await cdp.send('Target.disposeBrowserContext', { browserContextId }).catch(() => undefined);
      throw err;
    }
  }

  /** The page's session or an attached frame's or worker's (paused until set up, so none of its requests escape). */
  private async setUp(session: string, isPage: boolean): Promise<void> {
    const { cdp } = this;
    this.removers.push(
      cdp.on('Fetch.requestPaused', session, (event) => this.paused(session, event)),
      cdp.on('Target.attachedToTarget', session, (event) => void this.attached(event)),
    );
    const common = [
      cdp.send('Fetch.enable', EVERY_REQUEST, session),
      cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true }, session),
    ];
    if (!isPage) {
      await Promise.all(common);
      return;
    }
    // Playwright dismissed dialogs nobody listened to; an open alert() would hold the page until its deadline.
    this.removers.push(
      cdp.on('Page.javascriptDialogOpening', session, () =>
        cdp.send('Page.handleJavaScriptDialog', { accept: false }, session).catch(() => undefined),
      ),
    );
    await Promise.all([
      ...common,
      cdp.send('Page.enable', {}, session),
      cdp.send('Page.setLifecycleEventsEnabled', { enabled: true }, session),
      cdp.send('Page.addScriptToEvaluateOnNewDocument', { source: BLOCK_SERVICE_WORKERS }, session),
      cdp.send('Page.setFontFamilies', DEFAULT_FONT_FAMILIES, session),
      cdp.send('Emulation.setFocusEmulationEnabled', { enabled: true }, session),
      this.setViewport(DEFAULT_VIEWPORT),
    ]);
  }

  private async attached(event: Message): Promise<void> {
    const session: string = event.sessionId;
    const type: string = event.targetInfo?.type ?? '';
    try {
      if (type === 'iframe') {
        await Promise.all([
          this.setUp(session, false),
          this.cdp.send('Page.addScriptToEvaluateOnNewDocument', { source: BLOCK_SERVICE_WORKERS }, session),
        ]);
      } else if (type === 'worker') {
        // A dedicated worker's own requests (importScripts, fetch) are routed the same way where it allows.
        await this.cdp.send('Fetch.enable', EVERY_REQUEST, session).catch(() => undefined);
      }
    } finally {
      await this.cdp.send('Runtime.runIfWaitingForDebugger', {}, session).catch(() => undefined);
    }
  }

  private paused(session: string, event: Message): void {
    const request = {
      session,
      requestId: event.requestId,
      url: event.request.url,
      method: event.request.method,
      headers: lowerCaseNames(event.request.headers ?? {}),
      resourceType: event.resourceType,
      frameId: event.frameId,
    };
    if (this.onRequest) this.onRequest(request);
    else void this.fail(request);
  }

  fulfill(request: PausedRequest, resource: FetchedResource): Promise<void> {
    return this.cdp
      .send(
        'Fetch.fulfillRequest',
        {
          requestId: request.requestId,
          responseCode: resource.status,
          responsePhrase: STATUS_CODES[resource.status] ?? '',
          responseHeaders: Object.entries(resource.headers).map(([name, value]) => ({ name, value })),
          body: resource.body.toString('base64'),
        },
        request.session,
      )
      .then(() => undefined);
  }

  fail(request: PausedRequest): Promise<void> {
    return this.cdp
      .send('Fetch.failRequest', { requestId: request.requestId, errorReason: 'BlockedByClient' }, request.session)
      .then(
        () => undefined,
        () => undefined,
      );
  }

  setViewport(viewport: { width: number; height: number }): Promise<unknown> {
    return this.cdp.send(
      'Emulation.setDeviceMetricsOverride',
      {
        mobile: false,
        width: viewport.width,
        height: viewport.height,
        screenWidth: viewport.width,
        screenHeight: viewport.height,
        deviceScaleFactor: 1,
        screenOrientation: { angle: 0, type: 'landscapePrimary' },
      },
      this.session,
    );
  }

  /** Closes the context and everything in it (the renderer goes with it). */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.onRequest = undefined;
    for (const remove of this.removers.splice(0)) remove();
    await this.cdp.send('Target.disposeBrowserContext', { browserContextId: this.contextId }).catch(() => undefined);
  }
}

function lowerCaseNames(headers: Record<string, string>): Record<string, string> {
  const lower: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) lower[name.toLowerCase()] = value;
  return lower;
}

/**
 * One warm browser, started by this process with its own process group and driven over its pipe (cdp.ts): no
 * WebSocket, no second protocol layer, no client library between a document and the browser.
 */
class ChromiumBrowser implements SupervisedInstance {
  readonly exited: Promise<void>;
  private constructor(
    readonly cdp: CdpConnection,
    readonly pid: number | undefined,
    exited: Promise<void>,
  ) {
    this.exited = exited;
  }

  static async start(signal: AbortSignal): Promise<ChromiumBrowser> {
    const command = await chromiumCommand();
    await removeOrphanProfiles();
    const profile = await mkdtemp(path.join(os.tmpdir(), PROFILE_PREFIX));
    await writeFile(path.join(profile, OWNER_FILE), String(process.pid));
    let child: ChildProcess;
    try {
      child = spawn(
        command.executablePath,
        [
          ...PLAYWRIGHT_SWITCHES,
          ...command.args,
          `--user-data-dir=${profile}`,
          '--remote-debugging-pipe',
          '--no-startup-window',
        ],
        // Its own process group, so the browser, its renderers and helpers (and the jail) die together.
        { detached: true, stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'], env: process.env },
      );
    } catch (err) {
      await removeProfile(profile);
      throw err;
    }
    // The profile is removed once the browser is gone, however it ended.
    const exited = new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.once('error', () => resolve());
    }).then(() => removeProfile(profile));
    const cdp = new CdpConnection(child.stdio[3] as Writable, child.stdio[4] as Readable);
    const browser = new ChromiumBrowser(cdp, child.pid, exited);
    const stop = () => killGroup(child.pid);
    signal.addEventListener('abort', stop, { once: true });
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        cdp.send('Browser.getVersion'),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new PluginError('Chromium did not start in time')), LAUNCH_TIMEOUT_MS);
        }),
      ]);
      signal.throwIfAborted();
      return browser;
    } catch (err) {
      await browser.kill();
      signal.throwIfAborted();
      throw err instanceof PluginError ? err : new PluginError('Chromium could not be started', { cause: err });
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', stop);
    }
  }

  /**
   * A context and page opened ahead for the next document (never used by a previous one): a new
   * page costs a renderer process, the largest part of a warm render, so it is made between
   * documents instead of on the next one's clock.
   */
  private spare: Promise<ChromiumPage> | undefined;

  /** A fresh context with one blank page: the spare if there is one, else a new one. */
  async freshPage(): Promise<ChromiumPage> {
    const spare = await this.spare?.catch(() => undefined);
    this.spare = undefined;
    return spare ?? ChromiumPage.open(this.cdp);
  }

  prepareSpare(): void {
    this.spare ??= ChromiumPage.open(this.cdp);
    this.spare.catch(() => (this.spare = undefined));
  }

  async ping(): Promise<void> {
    const { browserContextId } = await this.cdp.send('Target.createBrowserContext');
    await this.cdp.send('Target.disposeBrowserContext', { browserContextId });
  }

  async kill(): Promise<void> {
    // The browser leads its own process group: renderers, helpers and the jail die with it.
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

/** A wait that ran out: its message is the one the client reads. */
class PageTimeout extends PluginError {}

/** Open the document in a fresh context of a warm browser, wait as asked, and hand the page to `work`. */
async function withPage<R>(
  source: PageSource,
  options: PageOptions,
  ctx: EngineContext,
  work: (page: ChromiumPage, timeoutMs: number, guard: Guard) => Promise<R>,
): Promise<R> {
  ctx.signal.throwIfAborted();
  clearTimeout(idleTimer);
  const lease = await withSpan('chromium.acquire', {}, () => chromiumPool().acquire(ctx.signal));
  let broken: string | undefined;
  let page: ChromiumPage | undefined;
  // Every wait below ends when the run is interrupted (the context is closed too) or the browser goes away.
  let interrupt: (err: unknown) => void = () => undefined;
  const interrupted = new Promise<never>((_, reject) => (interrupt = reject));
  interrupted.catch(() => undefined);
  const guard: Guard = (work) => Promise.race([work, interrupted]);
  const onAbort = () => {
    interrupt(ctx.signal.reason);
    void page?.dispose();
  };
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  const stopWatching = lease.instance.cdp.onClose(() => interrupt(new CdpClosedError('the page')));
  try {
    page = await withSpan('chromium.context', {}, () => guard(lease.instance.freshPage()));
    const timeoutMs = () => Math.max(1_000, ctx.remainingMs() - 2_000);
    await withSpan('chromium.load', {}, () => load(page!, source, options, timeoutMs(), guard));
    return await withSpan('chromium.output', {}, () => work(page!, timeoutMs(), guard));
  } catch (err) {
    // A page that hung or was interrupted may have left the browser busy: it is not reused.
    if (ctx.signal.aborted) broken = 'the run was interrupted';
    else if (err instanceof PageTimeout) broken = 'a page timed out';
    else if (lease.instance.cdp.isClosed) broken = 'the browser closed';
    ctx.signal.throwIfAborted();
    throw translate(err);
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
    stopWatching();
    const released = withSpan('chromium.release', {}, async () => {
      const closed = page?.dispose();
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

type Guard = <T>(work: Promise<T>) => Promise<T>;

/** How long the network must be quiet, after the load event, for `networkidle` (Playwright's rule). */
const NETWORK_IDLE_MS = 500;

/**
 * Route every request of the page to `source`, navigate, and wait as `options` ask. Every request passes through
 * Node, so the document's own response (its status) and the requests in flight (network idle) are known here.
 */
async function load(
  page: ChromiumPage,
  source: PageSource,
  options: PageOptions,
  timeoutMs: number,
  guard: Guard,
): Promise<void> {
  const { cdp, session } = page;
  let documentStatus: number | undefined;
  let inFlight = 0;
  let quietSince = Date.now();
  page.onRequest = (request) => {
    inFlight++;
    const isNavigation = request.resourceType === 'Document';
    void answer(page, request, source, options, isNavigation).then((status) => {
      // The main frame's document: after a redirect, the last one answered is the page's.
      if (isNavigation && request.frameId === page.targetId && status !== undefined) documentStatus = status;
      inFlight--;
      quietSince = Date.now();
    });
  };
  const exceptions: Message[] = [];
  const removers: Array<() => void> = [];
  let waitingFor = 'load';
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new PageTimeout(
            waitingFor === 'selector'
              ? 'The page never showed the element named by waitFor'
              : 'The page did not finish loading in time',
          ),
        ),
      timeoutMs,
    );
  });
  expired.catch(() => undefined);
  const within = <T>(work: Promise<T>) => guard(Promise.race([work, expired]));
  try {
    const setUp: Promise<unknown>[] = [];
    if (options.viewport) setUp.push(page.setViewport(options.viewport));
    if (options.media) setUp.push(cdp.send('Emulation.setEmulatedMedia', { media: options.media }, session));
    if (options.failOnConsoleExceptions) {
      removers.push(
        cdp.on('Runtime.exceptionThrown', session, (event) => exceptions.push(event.exceptionDetails ?? {})),
      );
      setUp.push(cdp.send('Runtime.enable', {}, session));
    }
    await within(Promise.all(setUp));

    // The main frame's lifecycle events, kept from before the navigation so none is missed; read by its loaderId.
    const fired = new Map<string, Set<string>>();
    let lifecycleChanged: () => void = () => undefined;
    removers.push(
      cdp.on('Page.lifecycleEvent', session, (event) => {
        if (event.frameId !== page.targetId) return;
        const names = fired.get(event.loaderId) ?? new Set<string>();
        fired.set(event.loaderId, names);
        names.add(event.name);
        lifecycleChanged();
      }),
    );
    const navigation = await within(cdp.send('Page.navigate', { url: source.url }, session));
    if (navigation.errorText) throw new Error(navigation.errorText);
    const loaderId: string | undefined = navigation.loaderId;
    await within(
      new Promise<void>((resolve) => {
        const check = () => {
          if (!loaderId || fired.get(loaderId)?.has('load')) resolve();
        };
        lifecycleChanged = check;
        check();
      }),
    );
    const failOn = options.failOnHttpStatusCodes ?? DEFAULT_FAIL_ON_HTTP_STATUS_CODES;
    if (documentStatus !== undefined && failsOnStatus(documentStatus, failOn)) {
      const text = (STATUS_CODES[documentStatus] ?? '').replace(/[^\x20-\x7e]/g, '').slice(0, 80);
      throw new PluginError(
        `The page answered HTTP ${documentStatus}${text ? ` ${text}` : ''}, a status in failOnHttpStatusCodes ` +
          `(${JSON.stringify(failOn)})`,
      );
    }
    if (options.waitFor.kind === 'networkidle') {
      await within(
        new Promise<void>((resolve) => {
          const check = () => {
            const quietFor = Date.now() - quietSince;
            if (inFlight === 0 && quietFor >= NETWORK_IDLE_MS) resolve();
            else setTimeout(check, inFlight === 0 ? NETWORK_IDLE_MS - quietFor : NETWORK_IDLE_MS).unref();
          };
          check();
        }),
      );
    }
    if (options.waitFor.kind === 'selector') {
      waitingFor = 'selector';
      await within(evaluate(page, waitForSelectorExpression(options.waitFor.selector)));
      waitingFor = 'load';
    }
    if (options.waitFor.kind === 'delay') await within(new Promise((resolve) => setTimeout(resolve, delayMs(options))));
    if (options.fallbackTitle)
      await within(evaluate(page, `document.title ||= ${JSON.stringify(options.fallbackTitle)}`));
  } finally {
    clearTimeout(timer);
    for (const remove of removers) remove();
  }
  const [exception] = exceptions;
  if (exception) throw new PluginError(describeException(exceptionToError(exception), exceptions.length));
}

const delayMs = (options: PageOptions) => (options.waitFor.kind === 'delay' ? options.waitFor.ms : 0);

/** Resolves once an element matches `selector` (attached, visible or not), watching the document as it changes. */
function waitForSelectorExpression(selector: string): string {
  return `new Promise((resolve) => {
    const selector = ${JSON.stringify(selector)};
    if (document.querySelector(selector)) return resolve(true);
    const observer = new MutationObserver(() => {
      if (document.querySelector(selector)) { observer.disconnect(); resolve(true); }
    });
    observer.observe(document, { childList: true, subtree: true, attributes: true });
  })`;
}

/** Evaluates `expression` in the page (a promise awaited); a thrown exception is an error here. */
async function evaluate(page: ChromiumPage, expression: string): Promise<void> {
  const result = await page.cdp.send(
    'Runtime.evaluate',
    { expression, awaitPromise: true, returnByValue: true },
    page.session,
  );
  if (result.exceptionDetails) {
    const error = exceptionToError(result.exceptionDetails);
    throw new PluginError(
      error.name === 'SyntaxError'
        ? 'The selector named by waitFor is not a valid CSS selector'
        : 'The page could not be read',
      { cause: error },
    );
  }
}

/** An exception the page threw, as Playwright read it: its name and message from its description. */
function exceptionToError(details: Message): Error {
  const description: string = details.exception
    ? (details.exception.description ?? String(details.exception.value))
    : (details.text ?? '');
  const lines = description.split('\n');
  const firstFrame = lines.findIndex((line) => line.startsWith('    at'));
  const withName = firstFrame === -1 ? description : lines.slice(0, firstFrame).join('\n');
  const colon = withName.indexOf(':');
  const error = new Error(colon !== -1 && colon + 2 <= withName.length ? withName.slice(colon + 2) : withName);
  const nameOverride = details.exception?.preview?.properties?.find((p: { name: string }) => p.name === 'name');
  error.name = nameOverride ? (nameOverride.value ?? 'Error') : colon !== -1 ? withName.slice(0, colon) : '';
  return error;
}

/**
 * The page's first uncaught exception in one line (its own words, which the client's page or the site wrote; no
 * stack).
 */
function describeException(exception: Error, count: number): string {
  const what = `${exception.name || 'Error'}: ${exception.message}`.replace(/\s+/g, ' ').trim().slice(0, 300);
  const more = count > 1 ? ` (and ${count - 1} more)` : '';
  return `The page threw an exception (failOnConsoleExceptions): ${what}${more}`;
}

/** The browser's errors carry protocol internals: the client reads one plain sentence. */
function translate(err: unknown): unknown {
  if (err instanceof PluginError) return err;
  const message = (err as Error)?.message ?? String(err);
  if (/net::ERR_/.test(message))
    return new PluginError(`The page could not be loaded (${/net::(ERR_[A-Z_]+)/.exec(message)?.[1]})`, { cause: err });
  if (err instanceof CdpClosedError) return new PluginError('The browser stopped while rendering', { cause: err });
  return err;
}

/** Answers one paused request from `source`, or refuses it; the status answered, if any. */
async function answer(
  page: ChromiumPage,
  request: PausedRequest,
  source: PageSource,
  options: PageOptions,
  isNavigation: boolean,
): Promise<number | undefined> {
  let resource: FetchedResource | undefined;
  try {
    resource = await source.fetch({ url: request.url, method: request.method, headers: request.headers, isNavigation });
  } catch {
    resource = undefined;
  }
  if (!resource) {
    options.onBlocked?.(request.url);
    await page.fail(request);
    return undefined;
  }
  return page.fulfill(request, resource).then(
    () => resource.status,
    () => undefined,
  );
}

/** Paper sizes in inches, as Playwright gave them to Chromium. */
const PAPER_INCHES: Record<PdfRenderOptions['format'], { width: number; height: number }> = {
  Letter: { width: 8.5, height: 11 },
  Legal: { width: 8.5, height: 14 },
  A3: { width: 11.7, height: 16.54 },
  A4: { width: 8.27, height: 11.7 },
  A5: { width: 5.83, height: 8.27 },
};
/** Millimetres to inches by Playwright's factor (3.78 CSS px a millimetre), so margins stay as they were. */
const mmToInches = (mm: number) => (mm * 3.78) / 96;
/** The most a PDF stream read brings back at once. */
const STREAM_CHUNK_BYTES = 4 * 1024 * 1024;

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
  await withPage(source, options, ctx, async (page, timeoutMs, guard) => {
    const headerFooter = options.headerHtml !== undefined || options.footerHtml !== undefined;
    const paper = PAPER_INCHES[options.format];
    const print = async () => {
      const { stream } = await page.cdp.send(
        'Page.printToPDF',
        {
          transferMode: 'ReturnAsStream',
          landscape: options.landscape,
          scale: options.scale,
          printBackground: options.printBackground,
          paperWidth: paper.width,
          paperHeight: paper.height,
          marginTop: mmToInches(options.margin.top),
          marginRight: mmToInches(options.margin.right),
          marginBottom: mmToInches(options.margin.bottom),
          marginLeft: mmToInches(options.margin.left),
          preferCSSPageSize: options.preferCssPageSize ?? false,
          // Chromium builds the outline from the structure tree: no tags, no bookmarks.
          generateTaggedPDF: (options.tagged ?? false) || (options.outline ?? false),
          generateDocumentOutline: options.outline ?? false,
          displayHeaderFooter: headerFooter,
          // An empty template hides Chromium's default (date and title) on the side not given.
          headerTemplate: headerFooter ? (options.headerHtml ?? '<span></span>') : '',
          footerTemplate: headerFooter ? (options.footerHtml ?? '<span></span>') : '',
        },
        page.session,
      );
      await saveStream(page, stream, output);
    };
    await guard(withTimeout(print(), timeoutMs)).catch((err: unknown) => {
      // Chromium gives no reason; with templates they are the likely cause, and the client's to change.
      if (headerFooter && /Printing failed/.test((err as Error)?.message ?? ''))
        throw new PluginError('The page could not be printed with this headerHtml or footerHtml', { cause: err });
      throw err;
    });
  });
}

/** Reads a protocol stream of the page's (IO.read) into `output`, chunk by chunk. */
async function saveStream({ cdp, session }: ChromiumPage, handle: string, output: string): Promise<void> {
  const file = await open(output, 'w');
  try {
    for (;;) {
      const chunk = await cdp.send('IO.read', { handle, size: STREAM_CHUNK_BYTES }, session);
      if (chunk.data) await file.write(Buffer.from(chunk.data, chunk.base64Encoded ? 'base64' : 'utf8'));
      if (chunk.eof) break;
    }
  } finally {
    await file.close();
    await cdp.send('IO.close', { handle }, session).catch(() => undefined);
  }
}

/** A screenshot of the page to `output` (PNG or JPEG). */
export async function renderImage(
  source: PageSource,
  output: string,
  options: ImageRenderOptions,
  ctx: EngineContext,
): Promise<void> {
  await withPage(source, options, ctx, async (page, timeoutMs, guard) => {
    const shoot = async () => {
      const { cdp, session } = page;
      // Two animation frames, as Playwright waited: a page just loaded may have no frame drawn to capture yet.
      await evaluate(page, 'new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
      const metrics = await cdp.send('Page.getLayoutMetrics', {}, session);
      const viewport = metrics.cssVisualViewport;
      const size = options.fullPage
        ? (metrics.cssContentSize ?? metrics.contentSize)
        : { width: viewport.clientWidth, height: viewport.clientHeight };
      const origin = options.fullPage ? { x: 0, y: 0 } : { x: viewport.pageX, y: viewport.pageY };
      const clip = { ...origin, width: Math.ceil(size.width), height: Math.ceil(size.height), scale: 1 };
      const { data } = await cdp.send(
        'Page.captureScreenshot',
        {
          format: options.type,
          ...(options.type === 'jpeg' ? { quality: 90 } : {}),
          clip,
          captureBeyondViewport: options.fullPage,
        },
        session,
      );
      await writeFile(output, Buffer.from(data, 'base64'));
    };
    await guard(withTimeout(shoot(), timeoutMs, 'The page could not be captured in time'));
  });
}

function withTimeout<R>(work: Promise<R>, timeoutMs: number, message = 'The page could not be printed in time') {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work,
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new PageTimeout(message)), timeoutMs))),
  ]).finally(() => clearTimeout(timer));
}
