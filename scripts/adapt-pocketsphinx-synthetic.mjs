#!/usr/bin/env node
/**
 * Re-estimates core/engines/pocketsphinx-synthetic/{means,variances}: pocketsphinx's en-us
 * acoustic model MAP-adapted to synthetic speech (espeak-ng, flite). Offline tooling, not part
 * of the product: the product reads the committed files.
 *
 * The adaptation speech shares nothing with bench/transcribe.ts: its sentences come from the
 * licence texts every Debian system carries (/usr/share/common-licenses; only sentences of 6 to
 * 14 words that are all in the decoder's dictionary), and each voice reads every other sentence.
 * Voices: espeak-ng en-us at 150, 175 and 200 wpm, en-us+f3 and en-gb at 175; flite kal, rms, slt
 * and awb. The steps are CMU Sphinx's "adapting the default acoustic model" recipe: sphinx_fe
 * (the model's own feat.params), sphinxtrain's bw (forced alignment against the transcripts) and
 * map_adapt (MAP re-estimation of the Gaussians; only means and variances are kept, so the
 * mixture weights stay Debian's). A single global MLLR transform (mllr_solve, pocketsphinx
 * `-mllr`) was measured first: espeak-ng at 175 wpm 72% -> 53% word errors, against 11% for MAP.
 * Debian's model ships its mixture weights compressed (sendump), which bw cannot read: they are
 * expanded here into a mixture_weights file first.
 *
 * Needs the Debian packages espeak-ng, flite, ffmpeg, pocketsphinx-en-us, sphinxbase-utils and
 * sphinxtrain. About 10 minutes on two cores.
 *
 * `--band-limited` adapts the model to band-limited speech instead (an 8 kHz voice such as flite
 * kal, telephone audio: nothing above 4 kHz): the same sentences and voices, every recording
 * resampled to 8 kHz and back to 16 kHz, written to core/engines/pocketsphinx-synthetic-8k. Measured
 * and not committed: flite kal 49.4% word errors against 48.1% with the shared model
 * (38.0% against 38.0% once kal was decoded without noise removal), so it did not pay its 1.6 MB.
 *
 *   node scripts/adapt-pocketsphinx-synthetic.mjs [--band-limited] [output folder]
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const bandLimited = process.argv.includes('--band-limited');
const outputArgument = process.argv.slice(2).find((arg) => !arg.startsWith('--'));
const output = path.resolve(
  outputArgument ?? path.join(root, `core/engines/pocketsphinx-synthetic${bandLimited ? '-8k' : ''}`),
);
/** Band-limited recordings go through 8 kHz, as telephone audio and 8 kHz voices do. */
const BAND_LIMIT = bandLimited ? ['-af', 'aresample=8000,aresample=16000'] : [];
const MODEL_ROOT = '/usr/share/pocketsphinx/model/en-us';
const SPHINXTRAIN = '/usr/lib/sphinxtrain';
const LICENCES = ['GPL-3', 'Apache-2.0', 'MPL-2.0', 'GFDL-1.3', 'Artistic', 'LGPL-2.1'];
/** Voice id -> the command writing `text` to `file`. */
const VOICES = {
  es175: (text, file) => ['espeak-ng', ['-v', 'en-us', '-s', '175', '-w', file, text]],
  es150: (text, file) => ['espeak-ng', ['-v', 'en-us', '-s', '150', '-w', file, text]],
  es200: (text, file) => ['espeak-ng', ['-v', 'en-us', '-s', '200', '-w', file, text]],
  esgb: (text, file) => ['espeak-ng', ['-v', 'en-gb', '-s', '175', '-w', file, text]],
  esf3: (text, file) => ['espeak-ng', ['-v', 'en-us+f3', '-s', '175', '-w', file, text]],
  fkal: (text, file) => ['flite', ['-voice', 'kal', '-t', text, '-o', file]],
  frms: (text, file) => ['flite', ['-voice', 'rms', '-t', text, '-o', file]],
  fslt: (text, file) => ['flite', ['-voice', 'slt', '-t', text, '-o', file]],
  fawb: (text, file) => ['flite', ['-voice', 'awb', '-t', text, '-o', file]],
};

const run = (command, args, options = {}) =>
  execFileSync(command, args, { stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 28, ...options });

/** Sentences of the licence texts whose words are all in the dictionary, in file order. */
function adaptationSentences(dictionary) {
  const words = new Set(
    readFileSync(dictionary, 'utf8')
      .split('\n')
      .map((line) => line.split(' ')[0])
      .filter((word) => word && !word.includes('(')),
  );
  const sentences = new Set();
  for (const name of LICENCES) {
    const text = readFileSync(path.join('/usr/share/common-licenses', name), 'latin1').replace(/\s+/g, ' ');
    for (const chunk of text.split(/[.;:!?()"]/)) {
      const tokens = chunk
        .toLowerCase()
        .trim()
        .split(/[\s,]+/)
        .filter(Boolean);
      if (tokens.length < 6 || tokens.length > 14) continue;
      if (tokens.every((token) => /^[a-z']+$/.test(token) && words.has(token))) sentences.add(tokens.join(' '));
    }
  }
  return [...sentences];
}

/** Sphinx-III binary file: the header, byte-order magic, then 32-bit words ending in their checksum. */
function writeS3(file, dims, values) {
  let header = 's3\nversion 1.0\nchksum0 yes\n';
  const misalign = (header.length + 'endhdr\n'.length) & 3;
  header += `${' '.repeat(misalign ? 4 - misalign : 0)}endhdr\n`;
  const body = Buffer.alloc(4 * (dims.length + 1 + values.length));
  for (const [i, dim] of dims.entries()) body.writeUInt32LE(dim, 4 * i);
  body.writeUInt32LE(values.length, 4 * dims.length);
  Buffer.from(values.buffer, values.byteOffset, values.byteLength).copy(body, 4 * (dims.length + 1));
  let checksum = 0;
  for (let i = 0; i < body.length; i += 4)
    checksum = (((checksum << 20) | (checksum >>> 12)) + body.readUInt32LE(i)) >>> 0;
  const magic = Buffer.alloc(4);
  magic.writeUInt32LE(0x11223344);
  const tail = Buffer.alloc(4);
  tail.writeUInt32LE(checksum);
  writeFileSync(file, Buffer.concat([Buffer.from(header, 'latin1'), magic, body, tail]));
}

/**
 * Expands pocketsphinx's sendump (uncompressed layout, `cluster_count 0`: per stream and
 * codeword, one byte per senone holding -log1.0001(weight) >> 10) into the mixture_weights
 * file bw reads (senone x stream x codeword, 32-bit floats, each mixture normalised).
 */
function expandSendump(sendump, mixtureWeights) {
  const data = readFileSync(sendump);
  let offset = 0;
  const readString = () => {
    const length = data.readUInt32LE(offset);
    offset += 4;
    const text = data.subarray(offset, offset + Math.max(0, length - 1)).toString('latin1');
    offset += length;
    return length === 0 ? undefined : text;
  };
  readString();
  let streams = 1;
  for (let line = readString(); line !== undefined; line = readString()) {
    if (line.startsWith('cluster_count') && Number(line.split(' ')[1]) !== 0) throw new Error('clustered sendump');
    if (line.startsWith('feature_count')) streams = Number(line.split(' ')[1]);
  }
  const codewords = data.readUInt32LE(offset);
  const senones = data.readUInt32LE(offset + 4);
  offset += 8;
  const weights = new Float32Array(senones * streams * codewords);
  for (let stream = 0; stream < streams; stream++) {
    for (let codeword = 0; codeword < codewords; codeword++) {
      for (let senone = 0; senone < senones; senone++) {
        weights[(senone * streams + stream) * codewords + codeword] = 1.0001 ** -(data[offset++] << 10);
      }
    }
  }
  for (let mixture = 0; mixture < senones * streams; mixture++) {
    const row = weights.subarray(mixture * codewords, (mixture + 1) * codewords);
    const sum = row.reduce((a, b) => a + b, 0);
    for (let i = 0; i < row.length; i++) row[i] /= sum;
  }
  writeS3(mixtureWeights, [senones, streams, codewords], weights);
}

const work = mkdtempSync(path.join(os.tmpdir(), 'adapt-pocketsphinx-'));
try {
  const model = path.join(work, 'model');
  mkdirSync(model);
  for (const file of readdirSync(path.join(MODEL_ROOT, 'en-us')))
    copyFileSync(path.join(MODEL_ROOT, 'en-us', file), path.join(model, file));
  expandSendump(path.join(model, 'sendump'), path.join(model, 'mixture_weights'));
  run('pocketsphinx_mdef_convert', ['-text', path.join(model, 'mdef'), path.join(model, 'mdef.txt')]);

  const dictionary = path.join(MODEL_ROOT, 'cmudict-en-us.dict');
  const sentences = adaptationSentences(dictionary);
  const wavDir = path.join(work, 'wav');
  mkdirSync(wavDir);
  const ids = [];
  const transcripts = [];
  Object.entries(VOICES).forEach(([voice, say], v) => {
    sentences.forEach((sentence, i) => {
      if ((i + v) % 2 !== 0) return;
      const id = `${voice}-${i}`;
      const raw = path.join(work, `${id}.raw.wav`);
      const [command, args] = say(sentence, raw);
      run(command, args);
      run(
        'ffmpeg',
        ['-nostdin', '-loglevel', 'error', '-y', '-i', raw, ...BAND_LIMIT, '-ar', '16000', '-ac', '1'].concat([
          '-c:a',
          'pcm_s16le',
          path.join(wavDir, `${id}.wav`),
        ]),
      );
      rmSync(raw);
      ids.push(id);
      transcripts.push(`<s> ${sentence} </s> (${id})`);
    });
  });
  const fileIds = path.join(work, 'adapt.fileids');
  const transcription = path.join(work, 'adapt.transcription');
  writeFileSync(fileIds, `${ids.join('\n')}\n`);
  writeFileSync(transcription, `${transcripts.join('\n')}\n`);
  console.log(`${sentences.length} sentences, ${ids.length} recordings`);

  const featureDir = path.join(work, 'mfc');
  const accumulators = path.join(work, 'acc');
  mkdirSync(featureDir);
  mkdirSync(accumulators);
  // The decoder's own front end: its feat.params, and the dither it decodes with.
  run(
    'sphinx_fe',
    ['-argfile', path.join(model, 'feat.params'), '-samprate', '16000', '-c', fileIds].concat([
      '-di',
      wavDir,
      '-do',
      featureDir,
      '-ei',
      'wav',
      '-eo',
      'mfc',
      '-mswav',
      'yes',
      '-dither',
      'yes',
      '-seed',
      '1',
    ]),
  );
  run(path.join(SPHINXTRAIN, 'bw'), [
    ...['-hmmdir', model, '-moddeffn', path.join(model, 'mdef.txt'), '-ts2cbfn', '.ptm.'],
    ...['-feat', '1s_c_d_dd', '-svspec', '0-12/13-25/26-38', '-cmn', 'batch', '-agc', 'none'],
    ...['-dictfn', dictionary, '-fdictfn', path.join(model, 'noisedict')],
    ...['-ctlfn', fileIds, '-lsnfn', transcription, '-cepdir', featureDir, '-cepext', 'mfc'],
    ...['-accumdir', accumulators],
  ]);
  const adapted = path.join(work, 'adapted');
  mkdirSync(adapted);
  run(path.join(SPHINXTRAIN, 'map_adapt'), [
    ...['-moddeffn', path.join(model, 'mdef.txt'), '-ts2cbfn', '.ptm.', '-accumdir', accumulators],
    ...['-meanfn', path.join(model, 'means'), '-varfn', path.join(model, 'variances')],
    ...['-mixwfn', path.join(model, 'mixture_weights'), '-tmatfn', path.join(model, 'transition_matrices')],
    ...['-mapmeanfn', path.join(adapted, 'means'), '-mapvarfn', path.join(adapted, 'variances')],
    ...['-mapmixwfn', path.join(adapted, 'mixture_weights'), '-maptmatfn', path.join(adapted, 'transition_matrices')],
  ]);
  mkdirSync(output, { recursive: true });
  for (const file of ['means', 'variances']) copyFileSync(path.join(adapted, file), path.join(output, file));
  console.log(`wrote ${output}/means and ${output}/variances`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
