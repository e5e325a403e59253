/**
 * whisper.cpp: multilingual speech recognition with a ggml model the operator supplies
 * (WHISPER_MODEL). Every use of it goes through this module: which model files are known, the
 * start-up check of the configured one, and the calls a plugin makes.
 *
 * The engine is whisper.cpp's prebuilt Node addon from npm (@fugood/node-whisper-<os>-<cpu>, the
 * platform package of @fugood/whisper.node, MIT; the project installs the linux-x64 one). It is
 * a native addon, so it is loaded only where plugin runs execute (a sandbox process), never in
 * the server: the server only resolves the package and hashes the model file.
 *
 * The model path reaches sandbox processes with the engine paths (core/engines/paths.ts), under
 * the key WHISPER_MODEL_ENTRY: config checks the file once at start-up and hands it over there,
 * the same way the `<COMMAND>_PATH` overrides travel.
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { configureEnginePaths, enginePaths } from './paths.js';

/** The npm package holding whisper.cpp built for this platform. */
export const WHISPER_ADDON = `@fugood/node-whisper-${process.platform}-${process.arch}`;
/** whisper.cpp and the addon (MIT): a plugin using this module links it. */
export const WHISPER_LICENSE = 'MIT';
/** Key of the model file in the engine paths handed to sandbox processes. */
export const WHISPER_MODEL_ENTRY = 'whisper-model';

export interface KnownWhisperModel {
  name: string;
  sha256: string;
  bytes: number;
}

/**
 * The official ggml conversions (huggingface.co/ggerganov/whisper.cpp, the files
 * models/download-ggml-model.sh fetches), by the sha256 of the file. whisper.cpp's own
 * models/README.md lists SHA-1 only; these SHA-256 values (the Hugging Face LFS object ids) were
 * taken from independent projects that pin them, agreeing with each other (two or more for each,
 * one for large-v2) — not recomputed here, where the files cannot be downloaded.
 */
export const KNOWN_WHISPER_MODELS: readonly KnownWhisperModel[] = [
  { name: 'tiny', sha256: 'be07e048e1e599ad46341c8d2a135645097a538221678b7acdd1b1919c6e1b21', bytes: 77_691_713 },
  { name: 'tiny.en', sha256: '921e4cf8686fdd993dcd081a5da5b6c365bfde1162e72b08d75ac75289920b1f', bytes: 77_704_715 },
  { name: 'base', sha256: '60ed5bc3dd14eea856493d334349b405782ddcaf0028d4b5df4088345fba2efe', bytes: 147_951_465 },
  { name: 'base.en', sha256: 'a03779c86df3323075f5e796cb2ce5029f00ec8869eee3fdfb897afe36c6d002', bytes: 147_964_211 },
  { name: 'small', sha256: '1be3a9b2063867b937e64e2ec7483364a79917e157fa98c5d94b5c1fffea987b', bytes: 487_601_967 },
  { name: 'small.en', sha256: 'c6138d6d58ecc8322097e0f987c32f1be8bb0a18532a3f88f734d1bbf9c41e5d', bytes: 487_614_201 },
  { name: 'medium', sha256: '6c14d5adee5f86394037b4e4e8b59f1673b6cee10e3cf0b11bbdbee79c156208', bytes: 1_533_763_059 },
  {
    name: 'large-v2',
    sha256: '9a423fe4d40c82774b6af34115b8b935f34152246eb19e80e376071d3f999487',
    bytes: 3_094_623_691,
  },
  {
    name: 'large-v3',
    sha256: '64d182b440b98d5203c4f9bd541544d84c605196c4f7b845dfa11fb23594d1e2',
    bytes: 3_095_033_483,
  },
];

/** What start-up found in the configured model file; /readyz shows it. */
export interface WhisperModelInfo {
  path: string;
  /** A known model's name ("base"), else "unlisted (<size class>)". */
  name: string;
  sha256: string;
  bytes: number;
  /** `.en` models have English tokens only (n_vocab 51864); multilingual ones 51865 or more. */
  multilingual: boolean;
  /** Whether the sha256 is in KNOWN_WHISPER_MODELS (else WHISPER_MODEL_SHA256 pinned it). */
  listed: boolean;
}

const GGML_MAGIC = 0x67676d6c;
/** Multilingual vocabularies have 51865 tokens (large-v3: 51866); English-only ones 51864. */
const MULTILINGUAL_VOCAB = 51865;
const SIZE_CLASSES: Record<number, string> = { 4: 'tiny', 6: 'base', 12: 'small', 24: 'medium', 32: 'large' };

/**
 * Identify the model file at `file`: its ggml header, then its sha256 against the known list.
 * An unlisted file is refused unless `pinnedSha256` (WHISPER_MODEL_SHA256) names its hash: the
 * operator vouches for a file this list does not know (a quantised or fine-tuned model). Throws
 * an Error whose message says what to do. Synchronous: it runs once, at start-up.
 */
export function identifyWhisperModel(file: string, pinnedSha256?: string): WhisperModelInfo {
  let bytes: number;
  try {
    const stats = statSync(file);
    if (!stats.isFile()) throw new Error('not a file');
    bytes = stats.size;
  } catch {
    throw new Error(`no model file at ${file}`);
  }
  const fd = openSync(file, 'r');
  const hash = createHash('sha256');
  let header: Buffer;
  try {
    header = Buffer.alloc(48);
    readSync(fd, header, 0, header.length, 0);
    const block = Buffer.alloc(8 * 1024 * 1024);
    for (let position = 0; ; ) {
      const read = readSync(fd, block, 0, block.length, position);
      if (read === 0) break;
      hash.update(block.subarray(0, read));
      position += read;
    }
  } finally {
    closeSync(fd);
  }
  if (header.readUInt32LE(0) !== GGML_MAGIC) throw new Error(`${file} is not a whisper.cpp ggml model (no ggml magic)`);
  const nVocab = header.readInt32LE(4);
  const nAudioLayer = header.readInt32LE(20);
  const sha256 = hash.digest('hex');
  const known = KNOWN_WHISPER_MODELS.find((model) => model.sha256 === sha256);
  const pinned = pinnedSha256?.trim().toLowerCase();
  if (pinned && pinned !== sha256)
    throw new Error(`the sha256 of ${file} is ${sha256}, but WHISPER_MODEL_SHA256 is ${pinned}`);
  if (!known && !pinned) {
    throw new Error(
      `${path.basename(file)} (sha256 ${sha256}) is not one of the known whisper.cpp models ` +
        `(${KNOWN_WHISPER_MODELS.map((m) => m.name).join(', ')}); ` +
        `if you trust the file, set WHISPER_MODEL_SHA256=${sha256}`,
    );
  }
  const multilingual = nVocab >= MULTILINGUAL_VOCAB;
  const name =
    known?.name ??
    `unlisted (${SIZE_CLASSES[nAudioLayer] ?? `${nAudioLayer} layers`}${multilingual ? '' : ', English only'})`;
  return { path: file, name, sha256, bytes, multilingual, listed: Boolean(known) };
}

/** Whether this platform's addon is installed (resolved, never loaded: the server must not load it). */
export function whisperAddonInstalled(): boolean {
  try {
    createRequire(import.meta.url).resolve(WHISPER_ADDON);
    return true;
  } catch {
    return false;
  }
}

/** Engine-path entries for the model (merged into the others by config). */
export function whisperEnginePaths(modelPath: string | undefined): Record<string, string> {
  return modelPath ? { [WHISPER_MODEL_ENTRY]: modelPath } : {};
}

/** Set or clear the model in this process's engine paths (tests and tools; start-up goes through config). */
export function configureWhisperModel(modelPath: string | undefined): void {
  const { [WHISPER_MODEL_ENTRY]: _previous, ...others } = enginePaths();
  configureEnginePaths({ ...others, ...whisperEnginePaths(modelPath) });
}

/** The model configured for this process, if any. */
export function whisperModelPath(): string | undefined {
  return enginePaths()[WHISPER_MODEL_ENTRY];
}

/** Whether the model file speaks more than English (its vocabulary size, from the header). */
export function whisperModelIsMultilingual(modelPath: string): boolean {
  const fd = openSync(modelPath, 'r');
  try {
    const header = Buffer.alloc(8);
    readSync(fd, header, 0, 8, 0);
    return header.readInt32LE(4) >= MULTILINGUAL_VOCAB;
  } finally {
    closeSync(fd);
  }
}

// ---------------------------------------------------------------------------------------------
// Recognition (sandbox processes only)

/** The part of the addon this module uses (its own typings live in @fugood/whisper.node). */
interface NativeTranscription {
  stop(): Promise<void>;
  promise: Promise<{
    language?: string;
    result: string;
    segments: Array<{ text: string; t0: number; t1: number }>;
    isAborted: boolean;
  }>;
}
interface NativeWhisperContext {
  transcribeData(pcm16: ArrayBuffer, options: Record<string, unknown>): NativeTranscription;
  release(): Promise<void>;
}
interface WhisperAddon {
  WhisperContext: new (options: { filePath: string; useGpu?: boolean }) => NativeWhisperContext;
}

let loaded: { path: string; context: NativeWhisperContext } | undefined;

/** The context for `modelPath`, loaded once per process and kept warm between runs. */
function contextFor(modelPath: string): NativeWhisperContext {
  if (loaded?.path === modelPath) return loaded.context;
  const previous = loaded;
  loaded = undefined;
  void previous?.context.release();
  let addon: WhisperAddon;
  try {
    addon = createRequire(import.meta.url)(WHISPER_ADDON) as WhisperAddon;
  } catch (err) {
    throw new Error(`whisper.cpp's addon ${WHISPER_ADDON} could not be loaded: ${(err as Error).message}`, {
      cause: err,
    });
  }
  // Synchronous (the model is read into memory): fine here, this is a sandbox process.
  const context = new addon.WhisperContext({ filePath: modelPath, useGpu: false });
  loaded = { path: modelPath, context };
  return context;
}

export interface WhisperSegment {
  /** Seconds from the start of the PCM given. */
  start: number;
  end: number;
  text: string;
}

export interface WhisperResult {
  /** The language transcribed: the one asked for, or the one whisper detected. */
  language: string;
  segments: WhisperSegment[];
}

export interface WhisperOptions {
  modelPath: string;
  /** An ISO 639-1 code, or 'auto' to detect. */
  language: string;
  signal: AbortSignal;
  threads?: number;
  /** How long the call may go without using CPU before it counts as lost (default STALL_MS). */
  stallMs?: number;
}

/**
 * How long a transcription may go without using any CPU before it counts as lost. The addon
 * (1.1.3) never settles its promise when whisper.cpp fails or throws (its error callback passes
 * one argument where its handler waits for two), so a failed call looks like an endless one; a
 * live one always burns CPU.
 */
const STALL_MS = 30_000;
const STALL_CPU_MICROS = 50_000;
const STALL_CHECK_MS = 5_000;

/** Whisper's own markers for chunks without speech. */
const NON_SPEECH = /^\s*\[(?:BLANK_AUDIO|SILENCE|MUSIC|NOISE)\]\s*$/i;

/**
 * Transcribe 16 kHz mono 16-bit PCM (at most a few minutes: whisper.cpp holds it in memory as
 * floats). Times are clamped to the audio given. On abort the call settles at once; whisper.cpp
 * cannot be interrupted inside a window, so the native thread finishes its window in the
 * background (seconds) and the sandbox's deadline kill covers the rest.
 */
export async function transcribePcm(
  pcm: Buffer,
  { modelPath, language, signal, threads, stallMs = STALL_MS }: WhisperOptions,
): Promise<WhisperResult> {
  signal.throwIfAborted();
  const seconds = pcm.length / 2 / 16_000;
  const context = contextFor(modelPath);
  const data = pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + pcm.length - (pcm.length % 2)) as ArrayBuffer;
  const run = context.transcribeData(data, {
    language,
    maxThreads: threads ?? Math.max(1, Math.min(4, os.availableParallelism())),
  });
  const result = await new Promise<Awaited<NativeTranscription['promise']>>((resolve, reject) => {
    let cpuMark = process.cpuUsage();
    let quietSince = Date.now();
    const watch = setInterval(
      () => {
        const used = process.cpuUsage(cpuMark);
        cpuMark = process.cpuUsage();
        if (used.user + used.system > STALL_CPU_MICROS) quietSince = Date.now();
        else if (Date.now() - quietSince >= stallMs)
          finish(() => reject(new Error('whisper.cpp stopped without a result (the model may be damaged)')));
      },
      Math.min(STALL_CHECK_MS, stallMs / 3),
    );
    const onAbort = () => {
      void run.stop();
      finish(() => reject(signal.reason));
    };
    let settled = false;
    function finish(settle: () => void) {
      if (settled) return;
      settled = true;
      clearInterval(watch);
      signal.removeEventListener('abort', onAbort);
      settle();
    }
    signal.addEventListener('abort', onAbort, { once: true });
    run.promise.then(
      (value) => finish(() => resolve(value)),
      (err: unknown) => finish(() => reject(err)),
    );
  });
  const segments: WhisperSegment[] = [];
  for (const segment of result.segments) {
    const text = segment.text.trim();
    if (!text || NON_SPEECH.test(text)) continue;
    // t0/t1 are milliseconds; a model can put a timestamp past the audio it was given.
    const start = Math.min(Math.max(0, segment.t0 / 1000), seconds);
    const end = Math.min(Math.max(start, segment.t1 / 1000), seconds);
    segments.push({ start, end, text });
  }
  return { language: result.language ?? language, segments };
}

/** /readyz's `transcription`: which engine transcribes, with which model, in which languages. */
export function transcriptionStatus(model: WhisperModelInfo | undefined) {
  if (!model)
    return {
      engine: 'pocketsphinx',
      model: 'en-us (Debian pocketsphinx-en-us)',
      languages: ['en'],
      whisper: 'not configured (set WHISPER_MODEL)',
    };
  return {
    engine: 'whisper.cpp',
    model: model.name,
    sha256: model.sha256,
    listed: model.listed,
    languages: model.multilingual ? 'any (en, fr, de, es, it, nl, pt, ja or detected)' : ['en'],
  };
}
