/**
 * pocketsphinx: offline English speech recognition (CMU Sphinx, Debian's 0.8+5prealpha build
 * with its en-us acoustic model, dictionary and language model). Every run of it goes through
 * this module: one requirement, one output parser and one failure translator.
 *
 * `pocketsphinx_continuous -infile x.wav -time yes` splits the audio into utterances at the
 * silences it detects and prints, for each one, its hypothesis line then one line per word:
 * `word start end confidence`, times in seconds from the start of the file. Fillers (`<s>`,
 * `</s>`, `<sil>`, `[NOISE]`...) mark the utterance's bounds and pauses. The file is read as a
 * stream and the output is parsed line by line, so memory stays flat however long the audio is.
 * Input must be 16 kHz mono 16-bit PCM WAV (the pipeline converts with ffmpeg first).
 */
import { fileURLToPath } from 'node:url';
import { PluginError, type EngineRequirement } from '../contract/index.js';
import { engineDetail, isExitFailure, runOptions, withDetail, type EngineContext } from './common.js';
import { runProcess } from './process.js';

/** Without its English model (pocketsphinx-en-us) the program recognises nothing. */
export const POCKETSPHINX: EngineRequirement = {
  command: 'pocketsphinx_continuous',
  debian: ['pocketsphinx', 'pocketsphinx-en-us'],
  license: 'BSD-2-Clause',
};

/** The only language the Debian model set has. */
export const POCKETSPHINX_LANGUAGE = 'en';

export interface RecognizedWord {
  word: string;
  /** Seconds from the start of the file. */
  start: number;
  end: number;
  confidence: number;
}

/** One utterance: the words between two silences pocketsphinx detected. */
export interface Utterance {
  start: number;
  end: number;
  text: string;
  words: RecognizedWord[];
}

/**
 * Decoder settings, chosen by word error rate (bench/transcribe.ts; JFK / LibriVox / flite):
 * `-lw 3` lowers the language model's weight in the first pass from 6.5, so the en-us model's
 * news-text statistics no longer outvote what was said: JFK 63.6% -> 31.8%, LibriVox 36.6% ->
 * 33.8%, flite voices unchanged. 2, 4 and 5 are no better on both real sets.
 * `-dither yes` adds half a bit of noise: synthetic voices (espeak-ng, flite) pause in digital
 * silence, whose log spectrum skews the noise and mean estimates. espeak-ng at 175 wpm: 73.4% ->
 * 72.2% on the tuning half, 80.0% -> 73.8% held out (68.4% with another seed: a small gain, of
 * the order of the seed's own spread). `-seed 1` keeps the noise, and so the transcript, the
 * same on every run.
 * Left out: wider voice-activity padding (`-vad_prespeech 40 -vad_postspeech 80`, 0.4 s before
 * and 0.8 s after speech instead of 0.2 / 0.5): espeak-ng's tuning half 72.2% -> 65.8% and real
 * speech unchanged, but the held-out half 73.8% -> 75.0% and flite slt 39.2% -> 43.0%: the gain
 * did not carry over. The decoder's own VAD (`-remove_silence yes`) trims the silence.
 * Tried and left out on JFK / LibriVox / flite: `-remove_noise no` (LibriVox 29.6% but JFK, with
 * its crowd, 36.4%), wider beams (no change), -bestpath no, -fwdflat no, -wip, other
 * -vad_threshold values, raising -fwdflatlw/-bestpathlw. On espeak-ng (tuning half):
 * `-remove_noise no` (78.5%), EBU R128 loudness normalisation (74.7%), the denoiser (79.7%).
 * The dictionary/LM pair is Debian's only English one (cmudict-en-us + en-us.lm.bin;
 * en-us-phone.lm.bin decodes phones, not words).
 */
export const POCKETSPHINX_DECODER_OPTIONS: readonly string[] = ['-lw', '3', '-dither', 'yes', '-seed', '1'];

/**
 * ffmpeg's clean-up before pocketsphinx, for recordings with a noise floor (the transcribe plugin
 * measures it; synthetic speech at digital silence is left alone): an FFT denoiser (afftdn, noise
 * floor -25 dB) takes a steady hiss or hum out before the decoder's own spectral subtraction,
 * which adapts too slowly for short clips. Tuning halves: LibriVox with pink noise at 20 dB SNR
 * 79.5% -> 50.0% word errors, clean LibriVox 40.9% -> 31.8%, JFK unchanged at 31.8%; on espeak-ng
 * it cost words (68% -> 80%), hence the floor check. Loudness normalisation (EBU R128
 * `loudnorm`) was measured and left out: the decoder normalises its cepstra per utterance, and
 * the dynamic gain cost words on espeak-ng (73% -> 75%). LibriVox at 20 dB SNR: `loudnorm`
 * after the denoiser took the tuning half from 54.5% to 40.9% but the held-out half from 40.7% to
 * 44.4%, and the end-to-end test's own noise on all five clips from 43.7% to 49.3%: left out, the
 * gain did not carry over. Worse on the tuning half: band-limiting to speech (highpass 100 Hz:
 * 56.8%; with lowpass 4 kHz: 63.6%), stronger reduction (`nr=24`: 65.9%), a floor at the clips'
 * measured one (`nf=-38`: 65.9%), `anlmdn` (61.4%); noise tracking (`tn=1`) changed nothing. sox
 * `noisered` with the noise profile taken from the recording's own quietest 0.3 s stretches (10% of
 * it), before afftdn: amount 0.1 gave 50.0% at 20 dB but JFK 31.8% -> 63.6% and clean LibriVox
 * 31.8% -> 36.4%, 0.21 and more lost words everywhere, and alone (no afftdn) 70.5% or worse. The
 * measured SNR (90th minus 10th percentile of the frame levels) does not tell the noisy clips
 * (21-22 dB) from clean LibriVox (23-26 dB), so no amount could be chosen from it: left out. The
 * filter keeps the length, so segment times stay those of the media.
 */
export const POCKETSPHINX_AUDIO_FILTERS: readonly string[] = ['afftdn=nf=-25'];

/**
 * The en-us acoustic model's Gaussians adapted to synthetic speech: espeak-ng and flite lie
 * outside the voices the model was trained on, and no front-end setting brought espeak-ng under
 * 68% word errors. MAP-adapted means and variances (the mixture weights, transition matrices and
 * phone set stay Debian's), estimated by scripts/adapt-pocketsphinx-synthetic.mjs with
 * sphinxtrain (`bw`, `map_adapt`) on speech that is not the bench's: sentences of the licence
 * texts every Debian system carries (/usr/share/common-licenses), read by espeak-ng (en-us at 150,
 * 175 and 200 wpm, en-us+f3, en-gb) and flite (kal, rms, slt, awb). A derivative of the en-us
 * model, under its licence (BSD-2-Clause). Used only for audio that pauses in digital silence
 * (the transcribe plugin counts such frames): real recordings keep the model as it is.
 */
export const SYNTHETIC_SPEECH_MODEL_DIR = fileURLToPath(new URL('./pocketsphinx-synthetic', import.meta.url));
const SYNTHETIC_SPEECH_MODEL_OPTIONS: readonly string[] = [
  '-mean',
  `${SYNTHETIC_SPEECH_MODEL_DIR}/means`,
  '-var',
  `${SYNTHETIC_SPEECH_MODEL_DIR}/variances`,
];

/**
 * Band-limited audio (nothing above 4 kHz: an 8 kHz voice such as flite kal, a recording that went
 * through 8 kHz) is decoded without the decoder's noise removal: its filters above 4 kHz (the
 * model's filterbank reaches 6800 Hz) hold only the dither, and the noise remover's per-band
 * estimate there only distorts the spectrum it passes on. flite kal (synthetic): tuning
 * half 48.1% -> 38.0% word errors (held out, measured once at the end: 47.5% -> 40.0%); on 16
 * sentences of GPL-2 / MPL-1.1 / BSD that neither the bench nor the adaptation reads, 26.5% ->
 * 18.4%; the transcribe test's three sentences went the other way (41% -> 59%). The LibriVox
 * tuning clips through 8 kHz (real speech, denoised first): 97.7% -> 75.0%. Full-band recordings
 * keep it: without it the JFK clip (-46 dB above 4.5 kHz, so not band-limited by the plugin's
 * measure), whose crowd the remover does take out, went from 31.8% to 36.4%. Tried first and left
 * out: the model MAP-adapted to band-limited copies of the adaptation speech
 * (scripts/adapt-pocketsphinx-synthetic.mjs --band-limited): kal 49.4%, and 38% without noise
 * removal as with the shared model: kal's errors came from the noise remover, not the model.
 */
const BAND_LIMITED_OPTIONS: readonly string[] = ['-remove_noise', 'no'];

const WORD_LINE = /^(\S+) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?) (-?\d+(?:\.\d+)?(?:e-?\d+)?)$/;
/** `<s>`, `</s>`, `<sil>`, `[NOISE]`, `++UH++`: not words. */
const FILLER = /^(?:<.*>|\[.*\]|\+\+.*\+\+)$/;
/** Alternative pronunciations are marked `word(2)`. */
const ALTERNATIVE = /\(\d+\)$/;

/**
 * Parses pocketsphinx_continuous `-time yes` output line by line and calls `onUtterance` as each
 * utterance ends (at its `</s>`, or at the next hypothesis line, or at `finish()`).
 */
export class PocketsphinxOutputParser {
  private words: RecognizedWord[] = [];
  private open = false;

  constructor(private readonly onUtterance: (utterance: Utterance) => void) {}

  push(rawLine: string): void {
    const line = rawLine.trim();
    if (!line) return;
    const match = WORD_LINE.exec(line);
    if (!match) {
      // A hypothesis line starts the next utterance's block.
      this.flush();
      this.open = true;
      return;
    }
    const [, token = '', start, end, confidence] = match;
    if (token === '</s>') {
      this.flush();
      return;
    }
    this.open = true;
    if (FILLER.test(token)) return;
    this.words.push({
      word: token.replace(ALTERNATIVE, ''),
      start: Number(start),
      end: Number(end),
      confidence: Number(confidence),
    });
  }

  finish(): void {
    this.flush();
  }

  private flush(): void {
    const words = this.words;
    this.words = [];
    if (!this.open) return;
    this.open = false;
    if (words.length === 0) return;
    this.onUtterance({
      start: words[0]!.start,
      end: words.at(-1)!.end,
      text: words.map((w) => w.word).join(' '),
      words,
    });
  }
}

/**
 * pocketsphinx failures as client messages: audio it could not decode. A missing model is a
 * broken install, so it passes through with aborts, timeouts and a missing program.
 */
export function pocketsphinxFailure(err: unknown, signal: AbortSignal): unknown {
  if (!isExitFailure(err, signal)) return err;
  const detail = pocketsphinxDetail(err.stderrTail);
  if (!detail || /model|mdef|dict|\.lm\b|feat\.params/i.test(detail)) return err;
  return new PluginError(withDetail('The audio could not be decoded for speech recognition', detail), { cause: err });
}

const ERROR_LINE = /^(?:ERROR|FATAL): "[^"]*", line \d+: (.*)$/;

/** The decoder's first error line, without its source location and the server's paths. */
export function pocketsphinxDetail(stderr: string): string {
  for (const line of stderr.split(/\r\n|\n|\r/)) {
    const match = ERROR_LINE.exec(line.trim());
    if (match) return engineDetail(match[1]!.replace(/'\/[^']*'/g, 'the file'));
  }
  return '';
}

/**
 * English speech in a 16 kHz mono PCM WAV file, as utterances with absolute times. `onUtterance`
 * is called as each one is recognised (for progress); the full list is returned at the end.
 */
export async function recognizeSpeech(
  wavPath: string,
  ctx: EngineContext,
  {
    onUtterance,
    synthetic = false,
    bandLimited = false,
  }: {
    onUtterance?: (utterance: Utterance) => void;
    /** Decode with the model adapted to synthetic speech (SYNTHETIC_SPEECH_MODEL_DIR). */
    synthetic?: boolean;
    /** Nothing above 4 kHz (an 8 kHz source): decoded without noise removal (BAND_LIMITED_OPTIONS). */
    bandLimited?: boolean;
  } = {},
): Promise<Utterance[]> {
  ctx.signal.throwIfAborted();
  const utterances: Utterance[] = [];
  const parser = new PocketsphinxOutputParser((utterance) => {
    utterances.push(utterance);
    onUtterance?.(utterance);
  });
  try {
    await runProcess(
      POCKETSPHINX.command,
      // The decoder logs its configuration and per-utterance statistics to stderr (kilobytes; the
      // tail is bounded) and its errors there too: keep it, the translator reads the errors.
      [
        '-infile',
        wavPath,
        '-time',
        'yes',
        ...POCKETSPHINX_DECODER_OPTIONS,
        ...(synthetic ? SYNTHETIC_SPEECH_MODEL_OPTIONS : []),
        ...(bandLimited ? BAND_LIMITED_OPTIONS : []),
      ],
      runOptions(ctx, {
        captureStdout: false,
        onStdoutLine: (line) => parser.push(line),
        // The decoder runs confined: the adapted model's folder is bound into its jail, read-only.
        readable: synthetic ? [SYNTHETIC_SPEECH_MODEL_DIR] : [],
      }),
    );
  } catch (err) {
    throw pocketsphinxFailure(err, ctx.signal);
  }
  parser.finish();
  return utterances;
}
