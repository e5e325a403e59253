/**
 * Engine confinement: every external program (runProcess, the LibreOffice listeners, ffmpeg)
 * runs inside a bubblewrap (`bwrap`) jail:
 * - no network: new network namespace with only a loopback that nothing listens on (so no SSRF,
 *   not even to the server's own 127.0.0.1), plus new pid, ipc, uts and cgroup namespaces;
 * - a filesystem holding only the system (/usr and the merged-/usr links, a short list of
 *   non-secret /etc pieces, the fontconfig cache, the service's fontconfig file and FONTS_DIR: fonts.ts) read-only, a
 * private /tmp, /proc and /dev, and
 *   the folders the call is given: `writable` (the run's work folder) and `readable` (its input
 *   files). Never DATA_DIR, other jobs' folders, home directories or /etc secrets;
 * - an environment reduced to locale and PATH plus what the caller set explicitly (the service's
 *   own variables hold database URLs and keys);
 * - `--die-with-parent`: SIGKILL to bwrap (or to its process group) takes the whole jail with it,
 *   since the jail's pid 1 dies and the kernel kills the rest of its pid namespace.
 *
 * API (for runProcess, the office pool and later pools such as Chromium's):
 * - configureConfinement(true|false): whether runProcess calls of this process are jailed. Sandbox
 *   processes set it from their settings (config ENGINE_SANDBOX); the server process leaves it off
 *   (it runs no engine itself: its pools take `confine` explicitly), and so do unit tests of an
 *   engine module unless they turn it on;
 * - confined(executable, args, jail) -> { file, args, env }: what to spawn instead (jailedIf(on, ...):
 *   the same, or the bare program when `on` is false);
 * - withEngineScope({ writable, readable }, fn): the folders runProcess calls made within `fn`
 *   (async included) may use; calls outside any scope get neither, only a private /tmp.
 *   engineScratchRoot(): where code without a RunContext puts files for an engine (the scope's folder);
 * - probeConfinement(): whether the kernel lets bwrap make its namespaces (start-up and /readyz).
 */
import { spawn } from 'node:child_process';
import { AsyncLocalStorage } from 'node:async_hooks';
import { existsSync, lstatSync, readlinkSync, realpathSync, type Stats } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fontJailBinds } from './fonts.js';

export const BWRAP = 'bwrap';
/** The Debian package with bwrap: a requirement of the service itself, not of one plugin (scripts/engines.ts). */
export const CONFINEMENT_DEBIAN_PACKAGE = 'bubblewrap';

/** Folders (or files) one engine call may see besides the system. */
export interface EngineScope {
  /** Bound read-write at the same path. */
  writable: readonly string[];
  /** Bound read-only at the same path (input files that live outside the work folder). */
  readable?: readonly string[];
}

export interface Jail extends EngineScope {
  /** A host folder to appear as /tmp (the office pool shares its pipe sockets there); default a private tmpfs. */
  tmpDir?: string;
  /** Working directory inside the jail (default: the first writable folder, else /tmp). */
  cwd?: string;
  /** The environment the caller wants (its explicit additions survive; see jailEnvironment). */
  env?: NodeJS.ProcessEnv;
}

export interface ConfinementStatus {
  /** bwrap: engines run confined; off: ENGINE_SANDBOX=off. */
  mode: 'bwrap' | 'off';
  /** mode bwrap: whether the last check could make a jail; why not otherwise. */
  working?: boolean;
  reason?: string;
}

let enabled = false;
/** In a process that runs no plugin (the API, a worker): jail the calls made inside an engine scope only. */
let scopedOnly = false;

export function configureConfinement(on: boolean): void {
  enabled = on;
}

/**
 * For processes that run no plugin but measure uploads (the API at acceptance, a worker for a fetched import): the
 * runProcess calls made inside an engine scope (a measure's ffprobe or pdfinfo on the client's file) are jailed,
 * those outside any scope are the service's own and run as they are. Sandbox processes jail every call
 * (configureConfinement).
 */
export function configureScopedConfinement(on: boolean): void {
  scopedOnly = on;
}

export function confinementEnabled(): boolean {
  return enabled;
}

const scopes = new AsyncLocalStorage<EngineScope>();

/** Run `fn` with `scope` as the folders engine calls inside it may use. */
export function withEngineScope<T>(scope: EngineScope, fn: () => T): T {
  return scopes.run(scope, fn);
}

export function currentEngineScope(): EngineScope | undefined {
  return scopes.getStore();
}

/**
 * Where to put a scratch file an engine of this call must read: the run's folder when in one (a jail sees it), else the
 * system's temp folder.
 */
export function engineScratchRoot(): string {
  return currentEngineScope()?.writable[0] ?? os.tmpdir();
}

/** System folders bound read-only (or recreated as the symlinks they are on merged-/usr systems). */
const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];
/**
 * What of /etc engines read: the dynamic linker, fonts, engine configuration, time zone, MIME
 * types, paper size, alternatives links. Not passwd/shadow, ssh, ssl keys, hosts or resolv.conf.
 */
const ETC_ENTRIES = [
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'alternatives',
  'fonts',
  'ImageMagick-6',
  'ImageMagick-7',
  'libreoffice',
  'ghostscript',
  'libpaper.d',
  'papersize',
  'localtime',
  'timezone',
  'mime.types',
  'magic',
  'magic.mime',
  'gtk-3.0',
  'xdg',
];
/**
 * Caches and data engines need under /var, not secrets: fontconfig's cache (it would rescan every font at each
 * start); Ghostscript's CMaps and font maps (Debian keeps them in /var/lib/ghostscript: without them a PDF's text in
 * a predefined CJK encoding such as UniGB-UCS2-H cannot be read).
 */
const CACHE_DIRS = ['/var/cache/fontconfig', '/var/lib/ghostscript'];
/** Environment kept from the service's own; everything else must be set by the caller. */
const KEPT_ENV = /^(PATH|LANG|LANGUAGE|LC_[A-Z]+|TZ)$/;

function systemBinds(): string[] {
  const args: string[] = [];
  for (const dir of SYSTEM_DIRS) {
    let stat: Stats;
    try {
      stat = lstatSync(dir);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir);
    else args.push('--ro-bind', dir, dir);
  }
  for (const entry of ETC_ENTRIES) args.push('--ro-bind-try', `/etc/${entry}`, `/etc/${entry}`);
  for (const dir of CACHE_DIRS) args.push('--ro-bind-try', dir, dir);
  return args;
}

let systemArgs: string[] | undefined;

/**
 * The environment inside a jail: locale and PATH from the service, then every variable `wanted`
 * sets to a value the service does not have (HOME, OMP_THREAD_LIMIT, MAGICK_CONFIGURE_PATH...).
 * HOME and TMPDIR default to /tmp: the service's own do not exist in the jail.
 */
export function jailEnvironment(wanted: NodeJS.ProcessEnv | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { HOME: '/tmp', TMPDIR: '/tmp' };
  for (const [key, value] of Object.entries(process.env))
    if (KEPT_ENV.test(key) && value !== undefined) env[key] = value;
  for (const [key, value] of Object.entries(wanted ?? {}))
    if (value !== undefined && (KEPT_ENV.test(key) || process.env[key] !== value)) env[key] = value;
  return env;
}

/** An executable outside the system folders (a <COMMAND>_PATH override in /opt...): its folder is bound read-only. */
function executableBinds(executable: string): string[] {
  if (!executable.includes('/')) return [];
  let real: string;
  try {
    real = realpathSync(executable);
  } catch {
    return [];
  }
  const dir = path.dirname(real);
  return SYSTEM_DIRS.some((system) => dir === system || dir.startsWith(`${system}/`)) ? [] : ['--ro-bind', dir, dir];
}

/**
 * What to spawn to run `executable args` in `jail`: bwrap and its arguments, with the reduced
 * environment. Spawn it `detached` (own process group) and kill the group: the jail goes with it.
 */
export function confined(
  executable: string,
  args: readonly string[],
  jail: Jail,
): { file: string; args: string[]; env: NodeJS.ProcessEnv } {
  systemArgs ??= systemBinds();
  const binds: string[] = [];
  for (const file of jail.readable ?? []) if (existsSync(file)) binds.push('--ro-bind', file, file);
  for (const dir of jail.writable) binds.push('--bind', dir, dir);
  const cwd = jail.cwd ?? jail.writable[0] ?? '/tmp';
  const fonts = fontJailBinds();
  const env = { ...jailEnvironment(jail.env), ...fonts.env };
  // Set by bwrap itself: spawners that cannot pass an environment (fluent-ffmpeg) are covered too.
  const setenv = Object.entries(env).flatMap(([key, value]) => ['--setenv', key, value ?? '']);
  return {
    file: BWRAP,
    args: [
      '--unshare-net',
      '--unshare-pid',
      '--unshare-ipc',
      '--unshare-uts',
      '--unshare-cgroup-try',
      '--die-with-parent',
      '--new-session',
      '--hostname',
      'engine',
      ...systemArgs,
      '--proc',
      '/proc',
      '--dev',
      '/dev',
      ...(jail.tmpDir ? ['--bind', jail.tmpDir, '/tmp'] : ['--tmpfs', '/tmp']),
      // After /tmp: a work folder (or the fontconfig file) under the host's /tmp shows through the private one.
      ...binds,
      ...fonts.binds,
      ...executableBinds(executable),
      '--chdir',
      cwd,
      '--clearenv',
      ...setenv,
      '--',
      executable,
      ...args,
    ],
    env,
  };
}

/** What bwrap says when the program it was to run does not exist (spawn's ENOENT, in a jail). */
const JAILED_COMMAND_MISSING = /^bwrap: execvp [^\n]*: No such file or directory\s*$/m;

/** Whether a jail's stderr says its program does not exist. */
export function jailedCommandMissing(stderr: string): boolean {
  return JAILED_COMMAND_MISSING.test(stderr);
}

/** What to spawn for `executable args`: in `jail` when `on`, else the program itself with `jail.env`. */
export function jailedIf(
  on: boolean,
  executable: string,
  args: readonly string[],
  jail: Jail,
): { file: string; args: string[]; env: NodeJS.ProcessEnv } {
  return on ? confined(executable, args, jail) : { file: executable, args: [...args], env: jail.env ?? process.env };
}

/** The spawn for one runProcess call: the current engine scope's folders (none outside a scope). */
export function engineSpawn(
  executable: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; readable?: readonly string[] },
): { file: string; args: string[]; env: NodeJS.ProcessEnv } {
  const current = currentEngineScope();
  const scope = current ?? { writable: [] };
  const readable = [...(scope.readable ?? []), ...(options.readable ?? [])];
  return jailedIf(enabled || (scopedOnly && current !== undefined), executable, args, {
    writable: scope.writable,
    readable,
    ...(options.cwd ? { cwd: options.cwd } : {}),
    ...(options.env ? { env: options.env } : {}),
  });
}

/** Whether a jail can be made here: runs `true` in one. Resolves with the reason when it cannot. */
export function probeConfinement(timeoutMs = 10_000): Promise<{ ok: true } | { ok: false; reason: string }> {
  return new Promise((resolve) => {
    const { file, args, env } = confined('true', [], { writable: [] });
    let stderr = '';
    const child = spawn(file, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-2_000)));
    child.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve({
        ok: false,
        reason: err.code === 'ENOENT' ? 'bwrap is not installed (Debian package bubblewrap)' : err.message,
      });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve({ ok: true });
      else
        resolve({
          ok: false,
          reason:
            `bwrap could not make a jail ` +
            `(${signal ?? `exit ${code}`})${stderr.trim() ? `: ${stderr.trim().split('\n').pop()}` : ''}`,
        });
    });
  });
}
