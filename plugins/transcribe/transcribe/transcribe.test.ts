/**
 * transcribe end to end on speech made at test time: flite -> ffmpeg containers -> the plugin (ffmpeg + pocketsphinx).
 */
import { mkdtemp, readdir, rm, stat, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PluginError } from '../../../core/contract/index.js';
import { pluginConformanceSuite, runPlugin, type TestRun } from '../../../core/contract/testing/index.js';
import { probe } from '../../../core/engines/ffmpeg.js';
import { EngineError, runProcess } from '../../../core/engines/process.js';
import { PocketsphinxOutputParser, pocketsphinxFailure, type Utterance } from '../../../core/engines/pocketsphinx.js';
import {
  EXPECTED_TEXT,
  LIBRIVOX_DIR,
  PAUSE_SECONDS,
  SENTENCES,
  SpeechFixtures,
  libriVoxClips,
  wavHeader,
  withPinkNoise,
  wordErrorRate,
} from '../testing/fixtures.js';
import { TRANSCRIBE_CREDIT_WEIGHT, transcribePlugin } from './index.js';
import { expectTranscriptRow, rowOf } from '../testing/transcript.js';
import { toSegments } from './run.js';
import {
  NOISY_FLOOR_DB,
  cleanedForRecognition,
  frameEnergies,
  hasDigitalSilence,
  highBandLevelDb,
  isBandLimited,
  noiseFloorDb,
  pcmLayout,
  prepareAudio,
} from '../shared/audio.js';
import { transcribeTimeoutMs } from '../shared/family.js';
import { standardPlugins } from '../../index.js';

const fixtures = new SpeechFixtures();
beforeAll(() => fixtures.make(), 60_000);
afterAll(() => fixtures.cleanup());

/** pocketsphinx on flite's voice: about 22% WER measured on longer text; these sentences come out nearly exact. */
const MAX_WER = 0.25;

/** A plugin run context for calling the run code directly (no sandbox). */
const runContext = (target: string, workDir: string) =>
  ({
    target,
    workDir,
    signal: new AbortController().signal,
    progress() {},
    log: console,
    report() {},
    remainingMs: () => 60_000,
  }) as const;

/** The duration ffprobe gives the fixture's audio stream: the row's must be the media's own. */
async function mediaDuration(file: string): Promise<number> {
  const media = await probe(file, { timeoutMs: 30_000 });
  return media.streams.find((s) => s.type === 'audio')!.durationSec!;
}

async function expectTwoSentences(run: TestRun) {
  const row = rowOf(run);
  expectTranscriptRow(row);
  expect(row.language).toBe('en');
  expect(row.duration).toBeCloseTo(await mediaDuration(fixtures.file('two-sentences-mp3')), 1);
  expect(row.duration).toBeGreaterThan(5);
  expect(wordErrorRate(EXPECTED_TEXT['two-sentences-mp3'], row.text)).toBeLessThanOrEqual(MAX_WER);
  for (const word of ['quick', 'brown', 'fox', 'lazy', 'dog', 'weather', 'sunny', 'breeze'])
    expect(row.text.split(' ')).toContain(word);
  // Cut at the pause: the first segment holds the first sentence and ends before the second starts.
  expect(row.segments.length).toBe(2);
  expect(row.segments[0]!.text).toMatch(/fox .* dog$/);
  expect(row.segments[1]!.text).toMatch(/^the weather/);
  expect(row.segments[1]!.start - row.segments[0]!.end).toBeGreaterThan(PAUSE_SECONDS * 0.8);
  expect(run.progress.some((pct) => pct > 0 && pct < 100)).toBe(true);
}

pluginConformanceSuite(
  transcribePlugin,
  [
    { name: 'English MP3 (lang omitted)', files: [fixtures.get('two-sentences-mp3')], check: expectTwoSentences },
    {
      name: 'English MP3 (lang=en)',
      files: [fixtures.get('two-sentences-mp3')],
      options: { lang: 'en' },
      check: expectTwoSentences,
    },
    {
      name: 'MP4 video: its audio track',
      files: [fixtures.get('speech-mp4')],
      async check(run) {
        const row = rowOf(run);
        expectTranscriptRow(row);
        expect(row).toMatchObject({ language: 'en' });
        expect(row.duration).toBeCloseTo(await mediaDuration(fixtures.file('speech-mp4')), 1);
        expect(row.duration).toBeGreaterThan(2);
        expect(wordErrorRate(SENTENCES.call, row.text)).toBeLessThanOrEqual(MAX_WER);
        for (const word of ['call', 'tomorrow', 'morning']) expect(row.text).toContain(word);
      },
    },
  ],
  { against: standardPlugins },
);

describe('transcribe', () => {
  it('declares the spec limits, its weight and its engines', () => {
    expect(transcribePlugin).toMatchObject({
      op: 'transcribe',
      kind: 'extract',
      plan: 'business',
      extraction: { maxFiles: 10 },
      creditWeight: TRANSCRIBE_CREDIT_WEIGHT,
    });
    expect(TRANSCRIBE_CREDIT_WEIGHT).toBeGreaterThan(1);
    expect(transcribePlugin.engines.map((e) => e.command)).toEqual(['ffmpeg', 'ffprobe', 'pocketsphinx_continuous']);
    expect(transcribePlugin.engines[2]).toMatchObject({
      debian: ['pocketsphinx', 'pocketsphinx-en-us'],
      license: 'BSD-2-Clause',
    });
    expect(transcribePlugin.inputs).toEqual(
      expect.arrayContaining(['mp3', 'wav', 'm4a', 'opus', 'mp4', 'mkv', 'webm']),
    );
  });

  it.each([
    ['fr', 'French'],
    ['de', 'German'],
    ['es', 'Spanish'],
    ['it', 'Italian'],
    ['nl', 'Dutch'],
    ['pt', 'Portuguese'],
    ['ja', 'Japanese'],
  ])('refuses lang=%s without a whisper model instead of pretending', async (lang, name) => {
    const run = runPlugin(transcribePlugin, [fixtures.get('two-sentences-mp3')], { lang });
    await expect(run).rejects.toThrow(PluginError);
    await expect(run).rejects.toThrow(`${name} needs the whisper model; set WHISPER_MODEL`);
  });

  it('rejects a language outside the spec list', async () => {
    await expect(runPlugin(transcribePlugin, [fixtures.get('two-sentences-mp3')], { lang: 'zh' })).rejects.toThrow(
      /lang/,
    );
  });

  it('fails a video with no audio track cleanly', async () => {
    await expect(runPlugin(transcribePlugin, [fixtures.get('silent-mp4')])).rejects.toThrow(
      new PluginError('The MP4 file has no audio track, so there is nothing to transcribe'),
    );
  });

  it('refuses recordings over 2 hours before decoding them', async () => {
    // 2 h 0 min 5 s of 8-bit 8 kHz silence: 58 MB, written fast, its length in the WAV header.
    const file = path.join(fixtures.dir, 'long.wav');
    const seconds = 7205;
    await writeFile(
      file,
      Buffer.concat([
        wavHeader({ sampleRate: 8000, bitsPerSample: 8, dataBytes: seconds * 8000 }),
        Buffer.alloc(seconds * 8000, 0x80),
      ]),
    );
    const workDir = await mkdtemp(path.join(fixtures.dir, 'long-'));
    const progress: number[] = [];
    await expect(
      runPlugin(
        transcribePlugin,
        [{ path: file, format: 'wav' }],
        {},
        { workDir, onProgress: (p) => progress.push(p) },
      ),
    ).rejects.toThrow(new PluginError('The recording is 2 h 00 min long; transcription takes up to 2 hours per file'));
    // Refused from the header: no decoding progress, and no WAV written to the work dir.
    expect(progress).toEqual([]);
    expect(await readdir(workDir)).toEqual([]);
    await rm(file);
  });

  it('refuses files over 2 GB without reading them', async () => {
    const input = { ...fixtures.get('two-sentences-mp3'), filename: 'huge.mp3', bytes: 2_000_000_001 };
    const ctx = runContext('mp3', fixtures.dir);
    await expect(transcribePlugin.run([input], {}, ctx as never)).rejects.toThrow(
      new PluginError('The file is 2.01 GB; transcription takes files up to 2 GB'),
    );
  });

  it('hands the engines a WAV whose samples start at byte 44 (pocketsphinx assumes it)', async () => {
    const workDir = await mkdtemp(path.join(fixtures.dir, 'work-'));
    const input = {
      ...fixtures.get('two-sentences-mp3'),
      filename: 'talk.mp3',
      bytes: (await stat(fixtures.file('two-sentences-mp3'))).size,
    };
    const ctx = runContext('mp3', workDir);
    const audio = await prepareAudio(input, ctx as never, () => {});
    const layout = await pcmLayout(audio.wavPath);
    expect(layout.dataOffset).toBe(44);
    // MP3 decoders drop the encoder delay: the PCM may be a few hundredths shorter than the header says.
    expect(Math.abs(layout.dataBytes / 32_000 - audio.durationSec)).toBeLessThan(0.2);
  });

  it(
    'denoises recordings with a noise floor for pocketsphinx, and leaves synthetic speech (digital silence) ' + 'alone',
    async () => {
      const workDir = await mkdtemp(path.join(fixtures.dir, 'work-'));
      const ctx = runContext('json', workDir);
      const floorOf = async (wav: string) => noiseFloorDb(await frameEnergies(wav, await pcmLayout(wav)));
      const input = {
        ...fixtures.get('two-sentences-mp3'),
        filename: 'talk.mp3',
        bytes: (await stat(fixtures.file('two-sentences-mp3'))).size,
      };
      const synthetic = await prepareAudio(input, ctx as never, () => {});
      expect(await floorOf(synthetic.wavPath)).toBeLessThanOrEqual(NOISY_FLOOR_DB);
      // Left as it is, and marked: pocketsphinx reads it with the model adapted to synthetic speech.
      expect(await cleanedForRecognition(synthetic, ['afftdn=nf=-25'], ctx as never)).toEqual({
        ...synthetic,
        digitalSilence: true,
        bandLimited: false,
      });

      const [clip] = await libriVoxClips(LIBRIVOX_DIR);
      const noisyPath = path.join(workDir, 'noisy.wav');
      await withPinkNoise(clip!.file, 20, noisyPath);
      const noisy = { wavPath: noisyPath, durationSec: ((await stat(noisyPath)).size - 44) / 32_000 };
      expect(await floorOf(noisyPath)).toBeGreaterThan(NOISY_FLOOR_DB);
      const cleaned = await cleanedForRecognition(noisy, ['afftdn=nf=-25'], ctx as never);
      expect(cleaned.wavPath).not.toBe(noisyPath);
      expect(cleaned.digitalSilence).toBe(false);
      // Same length (times are kept), lower floor.
      expect((await stat(cleaned.wavPath)).size).toBe((await stat(noisyPath)).size);
      expect(await floorOf(cleaned.wavPath)).toBeLessThan(await floorOf(noisyPath));
    },
  );

  it('tells band-limited audio (flite kal, a recording through 8 kHz) from full-band speech', async () => {
    const workDir = await mkdtemp(path.join(fixtures.dir, 'work-'));
    const ctx = runContext('json', workDir);
    const highBandOf = async (wav: string) => highBandLevelDb(wav, await pcmLayout(wav));
    const wavOf = async (file: string, name: string, filter?: string) => {
      const out = path.join(workDir, `${name}.wav`);
      const resample = filter ? ['-af', filter] : [];
      await runProcess('ffmpeg', ['-v', 'error', '-y', '-i', file, ...resample, '-ar', '16000', '-ac', '1', out], {
        timeoutMs: 60_000,
      });
      return out;
    };
    const flite = async (voice: string) => {
      const raw = path.join(workDir, `${voice}.raw.wav`);
      const text = `${SENTENCES.fox}. ${SENTENCES.weather}.`;
      await runProcess('flite', ['-voice', voice, '-t', text, '-o', raw], { timeoutMs: 60_000 });
      return wavOf(raw, voice);
    };
    const kal = await flite('kal');
    const [clip] = await libriVoxClips(LIBRIVOX_DIR);
    const libriVox = await wavOf(clip!.file, 'librivox');
    const libriVox8k = await wavOf(clip!.file, 'librivox-8k', 'aresample=8000,aresample=16000');
    for (const wav of [kal, libriVox8k]) expect(isBandLimited(await highBandOf(wav))).toBe(true);
    for (const wav of [await flite('rms'), await flite('awb'), libriVox])
      expect(isBandLimited(await highBandOf(wav))).toBe(false);
    // No block with sound: nothing to judge.
    const silence = path.join(workDir, 'silence.wav');
    await writeFile(
      silence,
      Buffer.concat([wavHeader({ sampleRate: 16_000, bitsPerSample: 16, dataBytes: 32_000 }), Buffer.alloc(32_000)]),
    );
    expect(await highBandOf(silence)).toBeUndefined();
    // As flite writes it, kal is band-limited but pauses at -60 to -70 dBFS, not digital silence: read
    // as a recording (denoised, Debian's model), still without noise removal.
    const asWritten = await cleanedForRecognition({ wavPath: kal, durationSec: 3 }, ['afftdn=nf=-25'], ctx as never);
    expect(asWritten).toMatchObject({ digitalSilence: false, bandLimited: true });
    // kal's own pauses sit at -60 to -70 dBFS (its diphones were recorded with a floor); followed by
    // digital silence, as a speech pipeline pads it, it is synthetic and band-limited: pocketsphinx
    // decodes it with the adapted model and without its noise removal.
    const padded = await wavOf(path.join(workDir, 'kal.raw.wav'), 'kal-padded', 'apad=pad_dur=0.5');
    const cleaned = await cleanedForRecognition({ wavPath: padded, durationSec: 3 }, ['afftdn=nf=-25'], ctx as never);
    expect(cleaned).toMatchObject({ wavPath: padded, digitalSilence: true, bandLimited: true });
  });

  it('reads flite kal (an 8 kHz voice) as band-limited synthetic speech', async () => {
    const text = `${SENTENCES.fox}. ${SENTENCES.weather}. ${SENTENCES.call}.`;
    const raw = path.join(fixtures.dir, 'kal.raw.wav');
    const wav = path.join(fixtures.dir, 'kal.wav');
    await runProcess('flite', ['-voice', 'kal', '-t', text, '-o', raw], { timeoutMs: 60_000 });
    // Padded with digital silence, as the bench's sentences are (kal's own pauses are not).
    await runProcess('ffmpeg', ['-v', 'error', '-y', '-i', raw, '-af', 'apad=pad_dur=0.5', wav], { timeoutMs: 60_000 });
    const row = rowOf(await runPlugin(transcribePlugin, [{ path: wav, format: 'wav' }]));
    expectTranscriptRow(row);
    // kal is the roughest voice (README: about 40% word errors); these three sentences: 59%.
    expect(wordErrorRate(text, row.text)).toBeLessThanOrEqual(0.7);
  }, 300_000);

  it('calls audio synthetic when 1% of its frames are digital silence, never for an analogue floor', () => {
    const frames = (silent: number, total: number) =>
      Float32Array.from({ length: total }, (_, i) => (i < silent ? -100 : -40));
    expect(hasDigitalSilence(frames(1, 100))).toBe(true);
    expect(hasDigitalSilence(frames(1, 1000))).toBe(false);
    expect(hasDigitalSilence(frames(0, 100))).toBe(false);
    // A very quiet recording still has its microphone's noise above one 16-bit step.
    expect(hasDigitalSilence(Float32Array.from({ length: 100 }, () => -85))).toBe(false);
    expect(hasDigitalSilence(new Float32Array())).toBe(false);
  });

  it('reads espeak-ng at its default voice and speed with the adapted model', async () => {
    // Sentences neither the bench (Harvard lists) nor the adaptation (licence texts) uses, read as
    // one run without full stops: too few pauses for the 10th-percentile floor to call it quiet.
    const text = `${SENTENCES.fox} ${SENTENCES.weather} ${SENTENCES.call}`;
    const wav = path.join(fixtures.dir, 'espeak-default.wav');
    await runProcess('espeak-ng', ['-v', 'en-us', '-w', wav, text], { timeoutMs: 60_000 });
    const row = rowOf(await runPlugin(transcribePlugin, [{ path: wav, format: 'wav' }]));
    expectTranscriptRow(row);
    // Debian's model alone: 70-80% word errors on espeak-ng (README); adapted: about 20%.
    expect(wordErrorRate(text, row.text)).toBeLessThanOrEqual(0.4);
  }, 120_000);

  it('fails an unreadable file cleanly', async () => {
    const run = runPlugin(transcribePlugin, [fixtures.get('corrupt-mp3')]);
    await expect(run).rejects.toThrow(PluginError);
    await expect(run).rejects.toThrow(/MP3 file could not be read/);
  });
});

describe('segments', () => {
  const u = (start: number, end: number, text: string): Utterance => ({ start, end, text, words: [] });

  it('are clamped to the duration, monotonic, start < end, and never empty', () => {
    expect(
      toSegments([u(5, 7.5, 'late'), u(0.1, 2, 'first'), u(1.5, 3, 'overlap'), u(3, 3, 'zero'), u(4, 4.5, ' ')], 6.2),
    ).toEqual([
      { start: 0.1, end: 2, text: 'first' },
      { start: 2, end: 3, text: 'overlap' },
      { start: 5, end: 6.2, text: 'late' },
    ]);
  });
});

describe('pocketsphinx output', () => {
  it('is parsed into utterances of real words with absolute times', () => {
    const seen: Utterance[] = [];
    const parser = new PocketsphinxOutputParser((utterance) => seen.push(utterance));
    const lines = [
      'the quick fox',
      '<s> 0.070 0.110 0.999900',
      'the 0.120 0.340 0.879576',
      'quick 0.350 0.640 0.994316',
      '<sil> 0.650 0.700 0.7',
      'fox(2) 0.710 1.500 0.999900',
      '</s> 1.510 1.600 1.000000',
      '[NOISE]',
      '<s> 3.000 3.100 0.9',
      '[NOISE] 3.100 3.500 0.2',
      '</s> 3.500 3.600 1',
      'hello',
      '<s> 8.290 8.360 0.999300',
      'hello 8.370 8.900 0.5',
    ];
    for (const line of lines) parser.push(line);
    parser.finish();
    expect(seen.map(({ start, end, text }) => ({ start, end, text }))).toEqual([
      { start: 0.12, end: 1.5, text: 'the quick fox' },
      { start: 8.37, end: 8.9, text: 'hello' },
    ]);
    expect(seen[0]!.words[2]).toEqual({ word: 'fox', start: 0.71, end: 1.5, confidence: 0.9999 });
  });

  it('explains audio it could not decode, and passes a broken install through', () => {
    const live = new AbortController().signal;
    const mismatch = new EngineError(
      'exit',
      'exit',
      'pocketsphinx_continuous',
      1,
      'INFO: x\nERROR: "continuous.c", line 136: Input audio file has sample rate [8000], but decoder expects ' +
        '[16000]\nFATAL: "continuous.c", line 165: Failed to process file \'/tmp/x/a.wav\' due to format mismatch.',
    );
    const translated = pocketsphinxFailure(mismatch, live);
    expect(translated).toBeInstanceOf(PluginError);
    expect((translated as Error).message).toBe(
      'The audio could not be decoded for speech recognition (Input audio file has sample rate [8000], but decoder ' +
        'expects [16000])',
    );
    const noModel = new EngineError(
      'exit',
      'exit',
      'pocketsphinx_continuous',
      1,
      'ERROR: "acmod.c", line 83: Acoustic model definition is not specified either with -mdef option or with -hmm',
    );
    expect(pocketsphinxFailure(noModel, live)).toBe(noModel);
    const timeout = new EngineError('t', 'timeout', 'pocketsphinx_continuous', null, '');
    expect(pocketsphinxFailure(timeout, live)).toBe(timeout);
  });
});

describe('transcribe: work measured in seconds of media', () => {
  const measureCtx = () => ({ signal: AbortSignal.timeout(30_000), timeoutMs: 30_000, workDir: fixtures.dir });
  const work = transcribePlugin.limits.work!;

  it('measures a real audio and a real video file by their speech duration, at most 2 hours', async () => {
    expect(work).toMatchObject({ unit: 'seconds', max: 7200 });
    for (const name of ['two-sentences-mp3', 'speech-mp4'] as const) {
      const seconds = await work.measure({ ...fixtures.get(name), filename: name, bytes: 1 }, measureCtx());
      expect(seconds).toBeCloseTo(await mediaDuration(fixtures.file(name)), 1);
      expect(seconds).toBeGreaterThan(1);
    }
  });

  it('reads a 2-hour WAV header without decoding, and leaves an unreadable file to the run', async () => {
    const file = path.join(fixtures.dir, 'header-only.wav');
    // 2 h 0 min 5 s of 8 kHz 8-bit audio: the header, then a sparse 58 MB the measure never reads.
    const dataBytes = 7205 * 8000;
    await writeFile(file, wavHeader({ sampleRate: 8000, bitsPerSample: 8, dataBytes }));
    await truncate(file, 44 + dataBytes);
    const input = { path: file, format: 'wav' as const, filename: 'long.wav', bytes: 44 + dataBytes };
    const seconds = await work.measure(input, measureCtx());
    expect(seconds).toBeCloseTo(7205, 0);
    expect(seconds).toBeGreaterThan(work.max);
    await rm(file);
    const corrupt = { ...fixtures.get('corrupt-mp3'), filename: 'corrupt.mp3', bytes: 2058 };
    await expect(work.measure(corrupt, measureCtx()).catch(() => undefined)).resolves.toBeUndefined();
  });

  it('gives a deadline that follows the measured duration, and the byte-based one when unmeasured', () => {
    const input = { path: 'x.mp3', format: 'mp3' as const, filename: 'x.mp3', bytes: 14_000_000 };
    expect(transcribeTimeoutMs([input], 7200)).toBe(10 * 60_000 + 7200 * 1_500);
    expect(transcribeTimeoutMs([input], 10)).toBe(10 * 60_000 + 15_000);
    expect(transcribeTimeoutMs([input])).toBe(15 * 60_000 + 14 * 180_000);
  });
});
