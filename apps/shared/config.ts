/** Configuration from the environment, validated once at start-up. */
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { licensePolicySchema } from '../../core/contract/licenses.js';
import { ENGINE_PATH_VARIABLES } from '../../core/engines/catalog.js';
import { WHISPER_ADDON, identifyWhisperModel, whisperAddonInstalled, whisperEnginePaths, type WhisperModelInfo } from '../../core/engines/whisper.js';
import { MIN_TOKEN_SECRET_BYTES } from '../../core/services/download-links.js';

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  /** Base of absolute links (downloadUrl, signed URLs). Default http://localhost:PORT. */
  PUBLIC_URL: z.url().optional(),
  DATA_DIR: z.string().default('data'),
  /** Set to run distributed: state in MongoDB, blobs in GridFS, Agenda on MongoDB. The path names the database. */
  MONGODB_URL: z.preprocess(
    (value) => (value === '' ? undefined : value), // empty = unset, as compose files pass it
    z.string().regex(/^mongodb(\+srv)?:\/\//, 'must start with mongodb:// or mongodb+srv://').optional(),
  ),
  /** Conversion jobs this process runs at once; 0 = API only (workers run elsewhere). */
  WORKERS: z.coerce.number().int().min(0).max(64).default(2),
  QUEUE_POLL_MS: z.coerce.number().int().min(10).default(500),
  QUEUE_LOCK_MS: z.coerce.number().int().min(1000).default(60_000),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(20_000),
  /** Extra plugin modules (comma-separated paths or package names) loaded after the standard distribution. */
  PLUGINS: z.string().default(''),
  /** Which plugins may load by the licences of what they link and run: any, no-strong-copyleft (no GPL/AGPL), permissive. */
  PLUGIN_LICENSES: licensePolicySchema.default('any'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * A whisper.cpp ggml model file: transcription then uses whisper for every language. Checked at
   * start-up: its sha256 must be a known model's (core/engines/whisper.ts) or WHISPER_MODEL_SHA256.
   */
  WHISPER_MODEL: z.preprocess((value) => (value === '' ? undefined : value), z.string().optional()),
  /** Vouches for a WHISPER_MODEL file the known list does not have (quantised, fine-tuned): its sha256. */
  WHISPER_MODEL_SHA256: z.preprocess((value) => (value === '' ? undefined : value), z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be a sha256 in hex (64 characters)').optional()),
  /**
   * Derives the 15-minute download links; never stored in the database. Unset in embedded mode:
   * generated into DATA_DIR/secret-key. Required in distributed mode (every machine needs it).
   */
  TOKEN_SECRET: z.preprocess(
    (value) => (value === '' ? undefined : value),
    z.string().refine((value) => Buffer.byteLength(value) >= MIN_TOKEN_SECRET_BYTES, `must be at least ${MIN_TOKEN_SECRET_BYTES} bytes (e.g. openssl rand -base64 32)`).optional(),
  ),
  /**
   * Webhooks may go to loopback, private and link-local addresses, and over plain http: for tests
   * and self-hosted intranets only. Cloud metadata addresses are refused whatever this says.
   */
  WEBHOOKS_ALLOW_PRIVATE: z.enum(['0', '1', 'false', 'true', '']).default('0'),
  /**
   * URL imports (`url`/`urls` instead of files) may fetch from loopback, private and link-local
   * addresses, and over plain http: for tests and intranets only. Metadata addresses never.
   */
  IMPORT_ALLOW_PRIVATE: z.enum(['0', '1', 'false', 'true', '']).default('0'),
  /** The deadline of one URL import (headers and body), in seconds. */
  IMPORT_TIMEOUT_S: z.coerce.number().int().min(1).max(3600).default(300),
  /**
   * Which proxies' X-Forwarded-For/-Proto to believe (client address for sign-in limits, https for
   * Secure cookies): unset = none, `true` = every hop, or a comma-separated list of proxy
   * addresses/CIDRs. Trusting without a proxy that overwrites the
   * headers would let any client choose its address.
   */
  TRUST_PROXY: z.string().default(''),
  /** Warm LibreOffice listeners per process (default: the number of cores); 0 = none, every office conversion starts a cold soffice. */
  OFFICE_POOL_SIZE: z.preprocess((value) => (value === '' ? undefined : value), z.coerce.number().int().min(0).max(64).optional()),
  /** A listener is recycled after this many conversions... */
  OFFICE_POOL_MAX_CONVERSIONS: z.coerce.number().int().min(1).default(200),
  /** ...or when its resident memory passes this (LibreOffice grows with use). */
  OFFICE_POOL_MAX_RSS_MB: z.coerce.number().int().min(200).default(1000),
  /** 1: a process running workers starts its listeners at start-up; 0: on its first office conversion. */
  OFFICE_POOL_WARM: z.enum(['0', '1', 'false', 'true', '']).default('1'),
  /**
   * Where mail goes (e-mail verification): smtp://user:pass@host:587 (STARTTLS when offered) or
   * smtps://user:pass@host:465. Unset: each message is written to DATA_DIR/outbox/*.eml instead.
   */
  SMTP_URL: z.preprocess((value) => (value === '' ? undefined : value), z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' }).optional()),
  /** The From header of mail; default "Transmute <no-reply@<PUBLIC_URL host>>". */
  MAIL_FROM: z.preprocess((value) => (value === '' ? undefined : value), z.string().max(320).optional()),
}).refine((env) => !env.MONGODB_URL || env.TOKEN_SECRET, {
  path: ['TOKEN_SECRET'],
  message: 'required when MONGODB_URL is set: API servers and workers on other machines must derive the same download links (e.g. openssl rand -base64 32)',
});

/**
 * `<COMMAND>_PATH` of every standard engine (core/engines/catalog.ts: PDFTOTEXT_PATH, GS_PATH,
 * SOFFICE_PATH, FFMPEG_PATH...): the binary to run instead of the one found on PATH. Empty = unset.
 */
const enginePathsSchema = z.object(
  Object.fromEntries(
    Object.values(ENGINE_PATH_VARIABLES).map((variable) => [
      variable,
      z.preprocess((value) => (value === '' ? undefined : value), z.string().refine((value) => !value.includes('\0'), 'must be a path').optional()),
    ]),
  ),
);

/** WHISPER_MODEL identified (hashed) once, here, so a wrong or unknown file stops start-up with the reason. */
function whisperModel(file: string | undefined, pinnedSha256: string | undefined): WhisperModelInfo | undefined {
  if (!file) {
    if (pinnedSha256) throw new Error('Invalid configuration: WHISPER_MODEL_SHA256 is set but WHISPER_MODEL is not');
    return undefined;
  }
  if (!whisperAddonInstalled()) {
    throw new Error(`Invalid configuration: WHISPER_MODEL is set, but whisper.cpp's addon (${WHISPER_ADDON}) is not installed for this platform`);
  }
  try {
    return identifyWhisperModel(path.resolve(file), pinnedSha256);
  } catch (err) {
    throw new Error(`Invalid configuration: WHISPER_MODEL: ${(err as Error).message}`);
  }
}

export type Config = ReturnType<typeof loadConfig>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new Error(`Invalid configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  const c = parsed.data;
  const paths = enginePathsSchema.safeParse(env);
  if (!paths.success) {
    throw new Error(`Invalid configuration: ${paths.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  const dataDir = path.resolve(c.DATA_DIR);
  const whisper = whisperModel(c.WHISPER_MODEL, c.WHISPER_MODEL_SHA256);
  const publicUrl = (c.PUBLIC_URL ?? `http://localhost:${c.PORT}`).replace(/\/+$/, '');
  return {
    port: c.PORT,
    host: c.HOST,
    publicUrl,
    dataDir,
    mongodbUrl: c.MONGODB_URL,
    workers: c.WORKERS,
    queuePollMs: c.QUEUE_POLL_MS,
    queueLockMs: c.QUEUE_LOCK_MS,
    shutdownGraceMs: c.SHUTDOWN_GRACE_MS,
    logLevel: c.LOG_LEVEL,
    /** Unset in embedded mode only: the runtime then uses DATA_DIR/secret-key (apps/shared/secret-key.ts). */
    tokenSecret: c.TOKEN_SECRET,
    extraPlugins: c.PLUGINS.split(',').map((s) => s.trim()).filter(Boolean),
    licensePolicy: c.PLUGIN_LICENSES,
    webhooksAllowPrivate: c.WEBHOOKS_ALLOW_PRIVATE === '1' || c.WEBHOOKS_ALLOW_PRIVATE === 'true',
    importAllowPrivate: c.IMPORT_ALLOW_PRIVATE === '1' || c.IMPORT_ALLOW_PRIVATE === 'true',
    importTimeoutMs: c.IMPORT_TIMEOUT_S * 1000,
    trustProxy: trustProxySetting(c.TRUST_PROXY),
    officePool: {
      size: c.OFFICE_POOL_SIZE ?? os.availableParallelism(),
      maxConversions: c.OFFICE_POOL_MAX_CONVERSIONS,
      maxRssMb: c.OFFICE_POOL_MAX_RSS_MB,
      warm: c.OFFICE_POOL_WARM !== '0' && c.OFFICE_POOL_WARM !== 'false',
    },
    /** Unset: mail is written to DATA_DIR/outbox. */
    smtpUrl: c.SMTP_URL,
    mailFrom: c.MAIL_FROM ?? `Transmute <no-reply@${new URL(publicUrl).hostname}>`,
    /** Engine path overrides, command -> path (only those set); handed to core/engines at start-up. */
    enginePaths: {
      ...Object.fromEntries(
        Object.entries(ENGINE_PATH_VARIABLES).flatMap(([command, variable]) => (paths.data[variable] ? [[command, paths.data[variable]]] : [])),
      ),
      // The whisper model reaches sandbox processes with the engine paths.
      ...whisperEnginePaths(whisper?.path),
    } as Record<string, string>,
    /** The whisper.cpp model checked at start-up (WHISPER_MODEL); undefined = pocketsphinx, English only. */
    whisper,
    /** Spec: uploads and outputs are deleted within 1 hour. The purge runs every minute, so files fall due a minute early. */
    retentionMs: 59 * 60_000,
    maxAttempts: 3,
  };
}

/** TRUST_PROXY as Fastify's `trustProxy`: false, true, or the proxies' addresses. */
export function trustProxySetting(value: string): boolean | string {
  const trimmed = value.trim();
  if (trimmed === '' || trimmed === '0' || trimmed === 'false') return false;
  if (trimmed === 'true') return true;
  return trimmed;
}
