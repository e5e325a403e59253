/**
 * Test support for transcription: English speech synthesised at test time with Debian's flite
 * (the `rms` voice, which pocketsphinx reads well), wrapped by ffmpeg into the containers the
 * tests send (MP3, an MP4 video with the speech as its audio track, a video with no audio at
 * all), plus a word error rate for checking transcripts by content.
 */
import { mkdtempSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runProcess } from '../../../core/engines/process.js';
import type { FormatId } from '../../../schema/index.js';

export const SENTENCES = {
  fox: 'the quick brown fox jumps over the lazy dog',
  weather: 'the weather today is warm and sunny with a light breeze',
  call: 'please call me back tomorrow morning about the meeting',
} as const;

/** Seconds of silence between the two sentences of the MP3: pocketsphinx cuts utterances there. */
export const PAUSE_SECONDS = 1.5;

export type SpeechFixtureName = 'two-sentences-mp3' | 'speech-mp4' | 'silent-mp4' | 'corrupt-mp3';
export const EXPECTED_TEXT: Record<'two-sentences-mp3' | 'speech-mp4', string> = {
  'two-sentences-mp3': `${SENTENCES.fox} ${SENTENCES.weather}`,
  'speech-mp4': SENTENCES.call,
};

const FORMATS: Record<SpeechFixtureName, FormatId> = {
  'two-sentences-mp3': 'mp3',
  'speech-mp4': 'mp4',
  'silent-mp4': 'mp4',
  'corrupt-mp3': 'mp3',
};
const TIMEOUT_MS = 60_000;

async function run(command: string, args: string[]): Promise<void> {
  await runProcess(command, args, { timeoutMs: TIMEOUT_MS });
}

export class SpeechFixtures {
  readonly dir = mkdtempSync(path.join(os.tmpdir(), 'transcribe-fixtures-'));

  file(name: SpeechFixtureName): string {
    return path.join(this.dir, `${name}.${FORMATS[name]}`);
  }

  get(name: SpeechFixtureName): { path: string; format: FormatId } {
    return { path: this.file(name), format: FORMATS[name] };
  }

  private async say(text: string, name: string): Promise<string> {
    const out = path.join(this.dir, `${name}.raw.wav`);
    await run('flite', ['-voice', 'rms', '-t', text, '-o', out]);
    return out;
  }

  async make(): Promise<void> {
    const [fox, weather, call] = await Promise.all([
      this.say(SENTENCES.fox, 'fox'),
      this.say(SENTENCES.weather, 'weather'),
      this.say(SENTENCES.call, 'call'),
    ]);
    const quiet = ['-hide_banner', '-loglevel', 'error', '-y'];
    await Promise.all([
      // 44.1 kHz stereo MP3, so the pipeline really resamples and downmixes.
      run('ffmpeg', [
        ...quiet,
        '-i',
        fox,
        '-f',
        'lavfi',
        '-t',
        String(PAUSE_SECONDS),
        '-i',
        'anullsrc=r=16000:cl=mono',
        '-i',
        weather,
        '-filter_complex',
        '[0:a][1:a][2:a]concat=n=3:v=0:a=1[a]',
        '-map',
        '[a]',
        '-ar',
        '44100',
        '-ac',
        '2',
        '-c:a',
        'libmp3lame',
        this.file('two-sentences-mp3'),
      ]),
      run('ffmpeg', [
        ...quiet,
        '-f',
        'lavfi',
        '-i',
        'testsrc2=size=320x240:rate=24',
        '-i',
        call,
        '-shortest',
        '-c:v',
        'libx264',
        '-preset',
        'veryfast',
        '-pix_fmt',
        'yuv420p',
        '-c:a',
        'aac',
        '-ar',
        '48000',
        '-ac',
        '2',
        this.file('speech-mp4'),
      ]),
      run('ffmpeg', [
        ...quiet,
        '-f',
        'lavfi',
        '-i',
        'testsrc2=size=320x240:rate=24:duration=2',
        '-c:v',
        'libx264',
        '-preset',
        'veryfast',
        '-pix_fmt',
        'yuv420p',
        this.file('silent-mp4'),
      ]),
      // An MP3 frame header followed by garbage: identified as MP3, unreadable as audio.
      writeFile(
        this.file('corrupt-mp3'),
        Buffer.concat([Buffer.from('ID3\x03\x00\x00\x00\x00\x00\x00', 'latin1'), Buffer.alloc(2048, 0x5a)]),
      ),
    ]);
  }

  async cleanup(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}

const words = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9' ]+/g, ' ')
    .split(/\s+/)
    .filter(Boolean);

/** Word error rate of `hypothesis` against `reference`: word-level edit distance over the reference's length. */
export function wordErrorRate(reference: string, hypothesis: string): number {
  const ref = words(reference);
  const hyp = words(hypothesis);
  let previous = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  for (let i = 1; i <= ref.length; i++) {
    const current = [i];
    for (let j = 1; j <= hyp.length; j++) {
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (ref[i - 1] === hyp[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return ref.length === 0 ? (hyp.length === 0 ? 0 : 1) : previous[hyp.length]! / ref.length;
}

/** A PCM WAV header (mono) for `dataBytes` of samples. */
export function wavHeader({
  sampleRate,
  bitsPerSample,
  dataBytes,
}: {
  sampleRate: number;
  bitsPerSample: 8 | 16;
  dataBytes: number;
}): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE((sampleRate * bitsPerSample) / 8, 28);
  header.writeUInt16LE(bitsPerSample / 8, 32);
  header.writeUInt16LE(bitsPerSample, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}

/**
 * The long-recording fixture: seven stretches of 9.4 s of speech-like sound (syllable-rate bursts
 * of a 220 Hz tone with a harmonic), each followed by 0.6 s of silence; 70 s, 16 kHz mono.
 */
export const BURSTS = { stretch: 9.4, gap: 0.6, period: 10, seconds: 70 } as const;

export async function writeToneBurstsWav(file: string): Promise<void> {
  const count = Math.round(BURSTS.seconds * 16_000);
  const data = Buffer.alloc(count * 2);
  for (let i = 0; i < count; i++) {
    const t = i / 16_000;
    if (t % BURSTS.period >= BURSTS.stretch) continue;
    const envelope = 0.5 + 0.5 * Math.sin(2 * Math.PI * 4 * t);
    data.writeInt16LE(
      Math.round(32767 * 0.3 * envelope * (Math.sin(2 * Math.PI * 220 * t) + 0.5 * Math.sin(2 * Math.PI * 440 * t))),
      2 * i,
    );
  }
  await writeFile(
    file,
    Buffer.concat([wavHeader({ sampleRate: 16_000, bitsPerSample: 16, dataBytes: data.length }), data]),
  );
}

/**
 * Real read speech with its transcripts: five LibriVox clips (Sense and Sensibility, public domain
 * recordings; 24.7 s, 16 kHz mono WAV) in Debian's pocketsphinx-testdata (in setup's TEST_PACKAGES).
 */
export const LIBRIVOX_DIR = '/usr/share/pocketsphinx/test/data/librivox';

/** The clips of a pocketsphinx-testdata librivox folder: `transcription` has "<s> words </s> (file-id)" per line. */
export async function libriVoxClips(
  dir = LIBRIVOX_DIR,
): Promise<Array<{ file: string; name: string; reference: string }>> {
  return (await readFile(path.join(dir, 'transcription'), 'utf8')).split('\n').flatMap((line) => {
    const match = /^<s> (.*) <\/s> \((.*)\)$/.exec(line.trim());
    return match ? [{ file: path.join(dir, `${match[2]}.wav`), name: `${match[2]}.wav`, reference: match[1]! }] : [];
  });
}

/**
 * `clip` (16 kHz mono 16-bit WAV with a 44-byte header, as the LibriVox clips are) mixed with
 * pink noise at `snrDb` (signal and noise RMS over the whole clip). The noise is Paul Kellet's
 * filtered white noise from a fixed-seed generator: the same file on every run.
 */
export async function withPinkNoise(clip: string, snrDb: number, out: string): Promise<void> {
  const wav = await readFile(clip);
  const samples = new Int16Array(
    wav.buffer.slice(wav.byteOffset + 44, wav.byteOffset + wav.length - ((wav.length - 44) % 2)),
  );
  let seed = 0x9e3779b9;
  const white = () => {
    seed = (Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return (seed / 2 ** 32) * 2 - 1;
  };
  const b = [0, 0, 0, 0, 0, 0, 0];
  const noise = new Float64Array(samples.length);
  for (let i = 0; i < noise.length; i++) {
    const w = white();
    b[0] = 0.99886 * b[0]! + w * 0.0555179;
    b[1] = 0.99332 * b[1]! + w * 0.0750759;
    b[2] = 0.969 * b[2]! + w * 0.153852;
    b[3] = 0.8665 * b[3]! + w * 0.3104856;
    b[4] = 0.55 * b[4]! + w * 0.5329522;
    b[5] = -0.7616 * b[5]! - w * 0.016898;
    noise[i] = b[0]! + b[1]! + b[2]! + b[3]! + b[4]! + b[5]! + b[6]! + w * 0.5362;
    b[6] = w * 0.115926;
  }
  const rms = (values: ArrayLike<number>) =>
    Math.sqrt(Array.from(values).reduce((sum, v) => sum + v * v, 0) / Math.max(1, values.length));
  const gain = rms(samples) / rms(noise) / 10 ** (snrDb / 20);
  const mixed = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i++)
    mixed.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(samples[i]! + gain * noise[i]!))), 2 * i);
  await writeFile(
    out,
    Buffer.concat([wavHeader({ sampleRate: 16_000, bitsPerSample: 16, dataBytes: mixed.length }), mixed]),
  );
}
