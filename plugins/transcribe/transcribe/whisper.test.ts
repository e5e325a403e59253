/**
 * The whisper path of transcribe, on a model generated in whisper.cpp's ggml format with random
 * weights (test-whisper-model.ts): its words are nonsense, but the addon loads it and everything
 * around it is real: ffmpeg's PCM, chunks cut at pauses, language detection or the language
 * asked for, segment times shifted to absolute positions, the row's shape.
 */
import { open, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PluginError } from '../../../core/contract/index.js';
import { runPlugin } from '../../../core/contract/testing/index.js';
import {
  KNOWN_WHISPER_MODELS,
  configureWhisperModel,
  identifyWhisperModel,
  transcribePcm,
  transcriptionStatus,
  whisperModelIsMultilingual,
} from '../../../core/engines/whisper.js';
import { runProcess } from '../../../core/engines/process.js';
import { pcmLayout, planChunks, readChunk } from '../shared/audio.js';
import { BURSTS, SpeechFixtures, wavHeader, writeToneBurstsWav } from '../testing/fixtures.js';
import { transcribePlugin } from './index.js';
import { expectTranscriptRow, rowOf } from '../testing/transcript.js';
import { writeTestWhisperModel } from '../testing/whisper-model.js';

const fixtures = new SpeechFixtures();
let modelPath: string;
let modelSha256: string;
let longWav: string;

beforeAll(async () => {
  await fixtures.make();
  modelPath = path.join(fixtures.dir, 'ggml-random.bin');
  modelSha256 = await writeTestWhisperModel(modelPath);
  longWav = path.join(fixtures.dir, 'long-bursts.wav');
  await writeToneBurstsWav(longWav);
  configureWhisperModel(modelPath);
}, 120_000);
afterAll(async () => {
  configureWhisperModel(undefined);
  await fixtures.cleanup();
});

describe('whisper model start-up check', () => {
  it('knows the official models by sha256, and refuses an unlisted file unless its hash is pinned', () => {
    expect(KNOWN_WHISPER_MODELS.map((m) => m.name)).toEqual(
      expect.arrayContaining(['tiny', 'tiny.en', 'base', 'base.en', 'small', 'small.en', 'medium', 'large-v3']),
    );
    for (const model of KNOWN_WHISPER_MODELS) expect(model.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(() => identifyWhisperModel(modelPath)).toThrow(
      `(sha256 ${modelSha256}) is not one of the known whisper.cpp models`,
    );
    expect(() => identifyWhisperModel(modelPath)).toThrow(`set WHISPER_MODEL_SHA256=${modelSha256}`);
    expect(() => identifyWhisperModel(modelPath, 'a'.repeat(64))).toThrow(
      `but WHISPER_MODEL_SHA256 is ${'a'.repeat(64)}`,
    );
    const info = identifyWhisperModel(modelPath, modelSha256.toUpperCase());
    expect(info).toEqual({
      path: modelPath,
      name: 'unlisted (1 layers)',
      sha256: modelSha256,
      bytes: expect.any(Number),
      multilingual: true,
      listed: false,
    });
    expect(transcriptionStatus(info)).toMatchObject({
      engine: 'whisper.cpp',
      model: 'unlisted (1 layers)',
      sha256: modelSha256,
    });
    expect(transcriptionStatus(undefined)).toMatchObject({ engine: 'pocketsphinx', languages: ['en'] });
    expect(whisperModelIsMultilingual(modelPath)).toBe(true);
  });

  it('refuses a file that is not a ggml model, and a missing one', async () => {
    const notModel = path.join(fixtures.dir, 'not-a-model.bin');
    await writeFile(notModel, 'hello');
    expect(() => identifyWhisperModel(notModel, 'b'.repeat(64))).toThrow('is not a whisper.cpp ggml model');
    expect(() => identifyWhisperModel(path.join(fixtures.dir, 'missing.bin'))).toThrow('no model file at');
  });
});

describe('chunks', () => {
  it('are cut in pauses, cover the whole recording, and are read back sample-exact', async () => {
    const layout = await pcmLayout(longWav);
    expect(layout).toEqual({ dataOffset: 44, dataBytes: Math.round(BURSTS.seconds * 16_000) * 2 });
    const chunks = await planChunks(longWav, layout, { maxSeconds: 30, minSeconds: 10 });
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    expect(chunks[0]!.start).toBe(0);
    expect(chunks.at(-1)!.end).toBeCloseTo(70, 1);
    for (const [i, chunk] of chunks.entries()) {
      expect(chunk.end - chunk.start).toBeLessThanOrEqual(30);
      if (i > 0) expect(chunk.start).toBe(chunks[i - 1]!.end);
      // Every cut lies inside a gap: never in a burst.
      if (i < chunks.length - 1)
        expect(chunk.end % BURSTS.period).toBeGreaterThanOrEqual(BURSTS.period - BURSTS.gap - 0.05);
      expect(chunk.silent).toBe(false);
    }
    const pcm = await readChunk(longWav, layout, chunks[1]!);
    expect(pcm.length).toBe((Math.round(chunks[1]!.end * 16_000) - Math.round(chunks[1]!.start * 16_000)) * 2);
  });

  it('plans a 2-hour recording in flat memory', async () => {
    // 2 h of 16 kHz PCM is 230 MB on disk (460 MB as whisper's floats): the plan must not hold it.
    const file = path.join(fixtures.dir, 'two-hours.wav');
    const dataBytes = 2 * 3600 * 32_000;
    const handle = await open(file, 'w');
    await handle.write(wavHeader({ sampleRate: 16_000, bitsPerSample: 16, dataBytes }));
    await handle.truncate(44 + dataBytes);
    await handle.close();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
    const layout = await pcmLayout(file);
    const chunks = await planChunks(file, layout, { maxSeconds: 30, minSeconds: 10 });
    clearInterval(sampler);
    await rm(file);
    // Cuts in the middle of a 0.3 s pause: chunks of 29.84 s at most.
    expect(chunks.length).toBe(Math.ceil(7200 / 29.84));
    expect(chunks.every((chunk) => chunk.silent)).toBe(true);
    expect(chunks.at(-1)!.end).toBe(7200);
    expect(peak - before).toBeLessThan(150_000_000);
  }, 120_000);

  it('marks silence as silent, and finds the data after a LIST chunk', async () => {
    const silent = path.join(fixtures.dir, 'silence.wav');
    // ffmpeg writes a LIST chunk (encoder name) before the samples.
    await runProcess(
      'ffmpeg',
      [
        '-nostdin',
        '-v',
        'error',
        '-y',
        '-f',
        'lavfi',
        '-i',
        'anullsrc=r=16000:cl=mono',
        '-t',
        '3',
        '-c:a',
        'pcm_s16le',
        silent,
      ],
      { timeoutMs: 30_000 },
    );
    const layout = await pcmLayout(silent);
    expect(layout.dataOffset).toBeGreaterThan(44);
    expect(layout.dataBytes).toBe(3 * 32_000);
    expect(await planChunks(silent, layout, { maxSeconds: 30, minSeconds: 10 })).toEqual([
      { start: 0, end: 3, silent: true },
    ]);
  });
});

describe('transcribe with whisper (WHISPER_MODEL set)', () => {
  it('detects the language when lang is omitted, with segments inside the media', async () => {
    const run = await runPlugin(transcribePlugin, [fixtures.get('two-sentences-mp3')]);
    const row = rowOf(run);
    expectTranscriptRow(row);
    expect(row.language).toMatch(/^[a-z]{2,3}$/);
    expect(row.duration).toBeGreaterThan(5);
    expect(row.segments.length).toBeGreaterThan(0);
    expect(run.progress.some((pct) => pct > 0 && pct < 100)).toBe(true);
  }, 120_000);

  it('transcribes every spec language it is asked for, and a video, and says which language', async () => {
    for (const lang of ['fr', 'ja']) {
      const row = rowOf(await runPlugin(transcribePlugin, [fixtures.get('two-sentences-mp3')], { lang }));
      expectTranscriptRow(row);
      expect(row.language).toBe(lang);
    }
    const video = rowOf(await runPlugin(transcribePlugin, [fixtures.get('speech-mp4')], { lang: 'de' }));
    expectTranscriptRow(video);
    expect(video.language).toBe('de');
  }, 180_000);

  it('stitches chunks of a long recording with absolute times', async () => {
    const run = await runPlugin(transcribePlugin, [{ path: longWav, format: 'wav' }], { lang: 'en' });
    const row = rowOf(run);
    expectTranscriptRow(row);
    expect(row.duration).toBeCloseTo(70, 1);
    // Segments from the later chunks carry times past the first 30 s window.
    expect(row.segments.at(-1)!.end).toBeGreaterThan(40);
    // Progress advanced per chunk.
    expect(new Set(run.progress.filter((pct) => pct > 15 && pct < 100)).size).toBeGreaterThanOrEqual(2);
  }, 180_000);

  it('stops when the run is aborted (its deadline), not at the end of the recording', async () => {
    const controller = new AbortController();
    const progress: number[] = [];
    const run = runPlugin(
      transcribePlugin,
      [{ path: longWav, format: 'wav' }],
      { lang: 'en' },
      {
        signal: controller.signal,
        onProgress: (pct) => {
          progress.push(pct);
          // The first chunk is done: the deadline passes.
          if (pct > 15) controller.abort(new PluginError('Timed out after 1 s'));
        },
      },
    );
    await expect(run).rejects.toThrow('Timed out after 1 s');
    expect(Math.max(...progress)).toBeLessThan(60);
  }, 120_000);

  it('gives up on a model that makes whisper.cpp fail, instead of waiting forever', async () => {
    // The addon never settles when whisper.cpp fails: the call must notice it stopped working.
    const damaged = path.join(fixtures.dir, 'ggml-damaged.bin');
    await writeTestWhisperModel(damaged, { damaged: true });
    const pcm = await readChunk(longWav, await pcmLayout(longWav), { start: 0, end: 5 });
    await expect(
      transcribePcm(pcm, { modelPath: damaged, language: 'en', signal: new AbortController().signal, stallMs: 3_000 }),
    ).rejects.toThrow('whisper.cpp stopped without a result');
    // The good model still works afterwards in the same process.
    const result = await transcribePcm(pcm, { modelPath, language: 'en', signal: new AbortController().signal });
    expect(result.language).toBe('en');
  }, 120_000);

  it('still fails a video without audio cleanly', async () => {
    await expect(runPlugin(transcribePlugin, [fixtures.get('silent-mp4')])).rejects.toThrow(
      new PluginError('The MP4 file has no audio track, so there is nothing to transcribe'),
    );
  });
});
