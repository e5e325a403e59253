/** Configuration from the environment, validated once at start-up. */
import { existsSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { licensePolicySchema } from '../../core/contract/licenses.js';
import { ENGINE_PATH_VARIABLES } from '../../core/engines/catalog.js';
import {
  WHISPER_ADDON,
  identifyWhisperModel,
  whisperAddonInstalled,
  whisperEnginePaths,
  type WhisperModelInfo,
} from '../../core/engines/whisper.js';
import { MIN_TOKEN_SECRET_BYTES } from '../../core/services/download-links.js';
import { DEFAULT_UPLOAD_IDLE_MS, DEFAULT_UPLOAD_MAX_MS, UPLOAD_MAX_S_LIMIT } from '../../core/services/upload-time.js';

const envSchema = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().default('0.0.0.0'),
    /** Base of absolute links (downloadUrl, signed URLs). Default http://localhost:PORT. */
    PUBLIC_URL: z.url().optional(),
    DATA_DIR: z.string().default('data'),
    /**
     * Below this much free space on DATA_DIR's file system, /readyz says `checks.disk: "low: N MB free"` and the
     * server is not ready (docs/OPERATIONS.md); 0 turns the check off.
     */
    DISK_MIN_FREE_MB: z.coerce.number().int().min(0).default(100),
    /** Set to run distributed: state in MongoDB, blobs in GridFS, Agenda on MongoDB. The path names the database. */
    MONGODB_URL: z.preprocess(
      (value) => (value === '' ? undefined : value), // empty = unset, as compose files pass it
      z
        .string()
        .regex(/^mongodb(\+srv)?:\/\//, 'must start with mongodb:// or mongodb+srv://')
        .optional(),
    ),
    /**
     * Set to scale out on PostgreSQL: state and Agenda in PostgreSQL (LISTEN/NOTIFY dispatch), blobs
     * in the S3 bucket (S3_BUCKET, required). docs/SCALE-OUT.md.
     */
    POSTGRES_URL: z.preprocess(
      (value) => (value === '' ? undefined : value),
      z
        .string()
        .regex(/^postgres(ql)?:\/\//, 'must start with postgres:// or postgresql://')
        .optional(),
    ),
    /**
     * S3-compatible object storage for blobs (required with POSTGRES_URL; with MONGODB_URL, used instead of GridFS).
     */
    S3_BUCKET: z.preprocess((value) => (value === '' ? undefined : value), z.string().min(3).max(63).optional()),
    /** Unset for AWS; the URL of MinIO, Ceph, R2... otherwise. */
    S3_ENDPOINT: z.preprocess((value) => (value === '' ? undefined : value), z.url().optional()),
    S3_REGION: z.preprocess((value) => (value === '' ? undefined : value), z.string().default('us-east-1')),
    /** Unset (both): the AWS SDK's default chain (environment, instance or task role). */
    S3_ACCESS_KEY_ID: z.preprocess((value) => (value === '' ? undefined : value), z.string().optional()),
    S3_SECRET_ACCESS_KEY: z.preprocess((value) => (value === '' ? undefined : value), z.string().optional()),
    /** 1: the bucket in the path (http://host/bucket/key), as MinIO and most self-hosted stores want. */
    S3_FORCE_PATH_STYLE: z.enum(['0', '1', 'false', 'true', '']).default(''),
    /** Conversion jobs this process runs at once; 0 = API only (workers run elsewhere). */
    WORKERS: z.coerce.number().int().min(0).max(64).default(2),
    QUEUE_POLL_MS: z.coerce.number().int().min(10).default(500),
    QUEUE_LOCK_MS: z.coerce.number().int().min(1000).default(60_000),
    SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(20_000),
    /**
     * How long uploads and outputs are kept, in seconds: the spec's hour less the minute between purges. Shorter
     * for tests that watch files go (the fault-injection soak); never longer than the spec allows.
     */
    RETENTION_S: z.coerce.number().int().min(30).max(3540).default(3540),
    /**
     * A request body (an upload) that sends no byte for this long while it is read is ended (408, its files
     * deleted), in seconds. Waiting answers (`Prefer: wait`), subscriptions and idle keep-alive connections are not
     * bodies being read.
     */
    UPLOAD_IDLE_S: z.coerce
      .number()
      .int()
      .min(1)
      .max(3600)
      .default(DEFAULT_UPLOAD_IDLE_MS / 1000),
    /**
     * A request body not received whole within this long is refused (408, its files deleted), in seconds. At most
     * UPLOAD_MAX_S_LIMIT: files no job took go once this, acceptance and a margin have passed, within the spec's hour
     * (core/services/upload-time.ts).
     */
    UPLOAD_MAX_S: z.coerce
      .number()
      .int()
      .min(1)
      .max(UPLOAD_MAX_S_LIMIT, {
        error: `must be at most ${UPLOAD_MAX_S_LIMIT}: an upload no job took must still be deleted within the hour`,
      })
      .default(DEFAULT_UPLOAD_MAX_MS / 1000),
    /** Extra plugin modules (comma-separated paths or package names) loaded after the standard distribution. */
    PLUGINS: z.string().default(''),
    /**
     * Which plugins may load by the licences of what they link and run: any, no-strong-copyleft (no GPL/AGPL),
     * permissive.
     */
    PLUGIN_LICENSES: licensePolicySchema.default('any'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /**
     * A whisper.cpp ggml model file: transcription then uses whisper for every language. Checked at
     * start-up: its sha256 must be a known model's (core/engines/whisper.ts) or WHISPER_MODEL_SHA256.
     */
    WHISPER_MODEL: z.preprocess((value) => (value === '' ? undefined : value), z.string().optional()),
    /** Vouches for a WHISPER_MODEL file the known list does not have (quantised, fine-tuned): its sha256. */
    WHISPER_MODEL_SHA256: z.preprocess(
      (value) => (value === '' ? undefined : value),
      z
        .string()
        .regex(/^[0-9a-fA-F]{64}$/, 'must be a sha256 in hex (64 characters)')
        .optional(),
    ),
    /**
     * Derives the 15-minute download links; never stored in the database. Unset in embedded mode:
     * generated into DATA_DIR/secret-key. Required in distributed mode (every machine needs it).
     */
    TOKEN_SECRET: z.preprocess(
      (value) => (value === '' ? undefined : value),
      z
        .string()
        .refine(
          (value) => Buffer.byteLength(value) >= MIN_TOKEN_SECRET_BYTES,
          `must be at least ${MIN_TOKEN_SECRET_BYTES} bytes (e.g. openssl rand -base64 32)`,
        )
        .optional(),
    ),
    /**
     * Webhooks may go to loopback, private and link-local addresses, and over plain http: for tests
     * and self-hosted intranets only. Cloud metadata addresses are refused whatever this says.
     */
    WEBHOOKS_ALLOW_PRIVATE: z.enum(['0', '1', 'false', 'true', '']).default('0'),
    /**
     * Requests made for a client — URL imports (`url`/`urls` instead of files), web pages rendered from
     * a URL and their subresources, S3 export endpoints — may go to loopback, private and link-local
     * addresses, over plain http too: for tests and intranets only. Metadata addresses never.
     */
    IMPORT_ALLOW_PRIVATE: z.enum(['0', '1', 'false', 'true', '']).default('0'),
    /** The deadline of one URL import (headers and body), in seconds. */
    IMPORT_TIMEOUT_S: z.coerce.number().int().min(1).max(3600).default(300),
    /**
     * How long a server vouches for an S3 export it holds the credentials of without renewing (it renews
     * every third of it); past it, the export is failed as abandoned (its server died), in seconds.
     */
    EXPORT_LEASE_S: z.coerce.number().int().min(1).max(3600).default(60),
    /**
     * Which proxies' X-Forwarded-For/-Proto to believe (client address for sign-in limits, https for
     * Secure cookies): unset = none, `true` = every hop, or a comma-separated list of proxy
     * addresses/CIDRs. Trusting without a proxy that overwrites the
     * headers would let any client choose its address.
     */
    TRUST_PROXY: z.string().default(''),
    /**
     * Warm LibreOffice listeners per process (default: the number of cores); 0 = none, every office conversion starts a
     * cold soffice.
     */
    OFFICE_POOL_SIZE: z.preprocess(
      (value) => (value === '' ? undefined : value),
      z.coerce.number().int().min(0).max(64).optional(),
    ),
    /** A listener is recycled after this many conversions... */
    OFFICE_POOL_MAX_CONVERSIONS: z.coerce.number().int().min(1).default(200),
    /** ...or when its memory (proportional set size) passes this (LibreOffice grows with use). */
    OFFICE_POOL_MAX_RSS_MB: z.coerce.number().int().min(200).default(1000),
    /** 1: a process running workers starts its listeners at start-up; 0: on its first office conversion. */
    OFFICE_POOL_WARM: z.enum(['0', '1', 'false', 'true', '']).default('1'),
    /**
     * Where mail goes (e-mail verification): smtp://user:pass@host:587 (STARTTLS when offered) or
     * smtps://user:pass@host:465. Unset: each message is written to DATA_DIR/outbox/*.eml instead.
     */
    SMTP_URL: z.preprocess(
      (value) => (value === '' ? undefined : value),
      z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' }).optional(),
    ),
    /** The From header of mail; default "Transmute <no-reply@<PUBLIC_URL host>>". */
    MAIL_FROM: z.preprocess((value) => (value === '' ? undefined : value), z.string().max(320).optional()),
    /**
     * Bearer token GET /metrics requires (on PORT and METRICS_PORT). Unset: /metrics is open on METRICS_PORT, or to
     * loopback only.
     */
    METRICS_TOKEN: z.preprocess(
      (value) => (value === '' ? undefined : value),
      z.string().min(16, 'must be at least 16 characters (e.g. openssl rand -hex 32)').optional(),
    ),
    /** A port of its own for GET /metrics (the worker's only HTTP); unset: the API serves it on PORT only. */
    METRICS_PORT: z.preprocess(
      (value) => (value === '' ? undefined : value),
      z.coerce.number().int().min(0).max(65535).optional(),
    ),
    /**
     * Engines (LibreOffice, ffmpeg, ImageMagick, Ghostscript...) run in bubblewrap jails: no network,
     * only the job's files (core/engines/confine.ts). `off` runs them bare: the only way to start
     * where the kernel refuses namespaces; a client's document can then reach the server's files and network.
     */
    ENGINE_SANDBOX: z.enum(['on', 'off', '1', '0', 'true', 'false', '']).default('on'),
    /**
     * A folder of the operator's own fonts (TrueType, OpenType, collections; subfolders too), added to those the
     * engines draw with (core/engines/fonts.ts) and bound read-only into their jails. docs/FONTS.md.
     */
    FONTS_DIR: z.preprocess(
      (value) => (value === '' ? undefined : value),
      z
        .string()
        .refine((value) => !value.includes('\0'), 'must be a path')
        .refine((value) => existsSync(value) && statSync(value).isDirectory(), 'must be an existing folder')
        .optional(),
    ),
  })
  .refine((env) => !env.MONGODB_URL || env.TOKEN_SECRET, {
    path: ['TOKEN_SECRET'],
    message:
      'required when MONGODB_URL is set: API servers and workers on other machines must derive the same download ' +
      'links (e.g. openssl rand -base64 32)',
  })
  .refine((env) => !env.POSTGRES_URL || env.TOKEN_SECRET, {
    path: ['TOKEN_SECRET'],
    message:
      'required when POSTGRES_URL is set: API servers and workers on other machines must derive the same download ' +
      'links (e.g. openssl rand -base64 32)',
  })
  .refine((env) => !(env.POSTGRES_URL && env.MONGODB_URL), {
    path: ['POSTGRES_URL'],
    message: 'set POSTGRES_URL or MONGODB_URL, not both',
  })
  .refine((env) => !env.POSTGRES_URL || env.S3_BUCKET, {
    path: ['S3_BUCKET'],
    message: 'required when POSTGRES_URL is set: processes on other machines share files through the bucket',
  })
  .refine((env) => !env.S3_ACCESS_KEY_ID === !env.S3_SECRET_ACCESS_KEY, {
    path: ['S3_SECRET_ACCESS_KEY'],
    message: 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together (or neither, for the SDK default chain)',
  });

/**
 * `<COMMAND>_PATH` of every standard engine (core/engines/catalog.ts: PDFTOTEXT_PATH, GS_PATH,
 * SOFFICE_PATH, FFMPEG_PATH...): the binary to run instead of the one found on PATH. Empty = unset.
 */
const enginePathsSchema = z.object(
  Object.fromEntries(
    Object.values(ENGINE_PATH_VARIABLES).map((variable) => [
      variable,
      z.preprocess(
        (value) => (value === '' ? undefined : value),
        z
          .string()
          .refine((value) => !value.includes('\0'), 'must be a path')
          .optional(),
      ),
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
    throw new Error(
      `Invalid configuration: WHISPER_MODEL is set, but whisper.cpp's addon (${WHISPER_ADDON}) is not installed for ` +
        `this platform`,
    );
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
    throw new Error(
      `Invalid configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  }
  const c = parsed.data;
  // CHROMIUM_PATH: the name of the web plugins' override before they ran chromium-headless-shell, still read.
  const paths = enginePathsSchema.safeParse({ CHROMIUM_HEADLESS_SHELL_PATH: env.CHROMIUM_PATH, ...env });
  if (!paths.success) {
    throw new Error(
      `Invalid configuration: ${paths.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  }
  const dataDir = path.resolve(c.DATA_DIR);
  const whisper = whisperModel(c.WHISPER_MODEL, c.WHISPER_MODEL_SHA256);
  const publicUrl = (c.PUBLIC_URL ?? `http://localhost:${c.PORT}`).replace(/\/+$/, '');
  return {
    port: c.PORT,
    host: c.HOST,
    publicUrl,
    dataDir,
    diskMinFreeMb: c.DISK_MIN_FREE_MB,
    mongodbUrl: c.MONGODB_URL,
    postgresUrl: c.POSTGRES_URL,
    /** Blobs in this bucket when set (PostgreSQL mode; MongoDB mode instead of GridFS). */
    s3: c.S3_BUCKET
      ? {
          bucket: c.S3_BUCKET,
          region: c.S3_REGION,
          forcePathStyle: c.S3_FORCE_PATH_STYLE === '1' || c.S3_FORCE_PATH_STYLE === 'true',
          ...(c.S3_ENDPOINT ? { endpoint: c.S3_ENDPOINT } : {}),
          ...(c.S3_ACCESS_KEY_ID && c.S3_SECRET_ACCESS_KEY
            ? { credentials: { accessKeyId: c.S3_ACCESS_KEY_ID, secretAccessKey: c.S3_SECRET_ACCESS_KEY } }
            : {}),
        }
      : undefined,
    workers: c.WORKERS,
    queuePollMs: c.QUEUE_POLL_MS,
    queueLockMs: c.QUEUE_LOCK_MS,
    shutdownGraceMs: c.SHUTDOWN_GRACE_MS,
    logLevel: c.LOG_LEVEL,
    /** Unset in embedded mode only: the runtime then uses DATA_DIR/secret-key (apps/shared/secret-key.ts). */
    tokenSecret: c.TOKEN_SECRET,
    extraPlugins: c.PLUGINS.split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    licensePolicy: c.PLUGIN_LICENSES,
    webhooksAllowPrivate: c.WEBHOOKS_ALLOW_PRIVATE === '1' || c.WEBHOOKS_ALLOW_PRIVATE === 'true',
    importAllowPrivate: c.IMPORT_ALLOW_PRIVATE === '1' || c.IMPORT_ALLOW_PRIVATE === 'true',
    importTimeoutMs: c.IMPORT_TIMEOUT_S * 1000,
    exportLeaseMs: c.EXPORT_LEASE_S * 1000,
    trustProxy: trustProxySetting(c.TRUST_PROXY),
    officePool: {
      size: c.OFFICE_POOL_SIZE ?? os.availableParallelism(),
      maxConversions: c.OFFICE_POOL_MAX_CONVERSIONS,
      maxRssMb: c.OFFICE_POOL_MAX_RSS_MB,
      warm: c.OFFICE_POOL_WARM !== '0' && c.OFFICE_POOL_WARM !== 'false',
    },
    /** GET /metrics: who may read it (apps/shared/metrics-endpoint.ts). */
    metrics: { token: c.METRICS_TOKEN, port: c.METRICS_PORT },
    /** The operator's fonts (FONTS_DIR), absolute; undefined: the installed fonts only. */
    fontsDir: c.FONTS_DIR ? path.resolve(c.FONTS_DIR) : undefined,
    /** Engines run confined (ENGINE_SANDBOX, default on). */
    engineSandbox: !['off', '0', 'false'].includes(c.ENGINE_SANDBOX),
    /** Unset: mail is written to DATA_DIR/outbox. */
    smtpUrl: c.SMTP_URL,
    mailFrom: c.MAIL_FROM ?? `Transmute <no-reply@${new URL(publicUrl).hostname}>`,
    /** Engine path overrides, command -> path (only those set); handed to core/engines at start-up. */
    enginePaths: {
      ...Object.fromEntries(
        Object.entries(ENGINE_PATH_VARIABLES).flatMap(([command, variable]) =>
          paths.data[variable] ? [[command, paths.data[variable]]] : [],
        ),
      ),
      // The whisper model reaches sandbox processes with the engine paths.
      ...whisperEnginePaths(whisper?.path),
    } as Record<string, string>,
    /** The whisper.cpp model checked at start-up (WHISPER_MODEL); undefined = pocketsphinx, English only. */
    whisper,
    /**
     * Spec: uploads and outputs are deleted within 1 hour. The purge runs every minute, so files fall due a minute
     * early.
     */
    retentionMs: c.RETENTION_S * 1000,
    /** A request body's longest pause while it is read (UPLOAD_IDLE_S). */
    uploadIdleMs: c.UPLOAD_IDLE_S * 1000,
    /** A request body's deadline (UPLOAD_MAX_S): the HTTP server's request timeout. */
    uploadMaxMs: c.UPLOAD_MAX_S * 1000,
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
