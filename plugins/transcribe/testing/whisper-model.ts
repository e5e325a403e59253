/**
 * A whisper.cpp model for tests, written at test time in whisper.cpp's ggml file format
 * (models/convert-pt-to-ggml.py; read by whisper_model_load in src/whisper.cpp):
 *
 *   u32 magic 0x67676d6c ("ggml")
 *   i32 n_vocab, n_audio_ctx, n_audio_state, n_audio_head, n_audio_layer,
 *       n_text_ctx, n_text_state, n_text_head, n_text_layer, n_mels, ftype
 *   i32 n_mel, n_fft, then n_mel * n_fft f32 (mel filters)
 *   i32 n_tokens, then per token: u32 length, bytes
 *   tensors until the end: i32 n_dims, name length, type; i32 ne[n_dims]; name; data
 *
 * The weights are random (a fixed seed), so the text it produces is nonsense, but the engine
 * loads it and runs the full pipeline: mel, encoder, language detection, decoding with
 * timestamps, segments. The dimensions are the smallest that keep the real model's audio
 * geometry (80 mels, 1500 audio positions = a 30 s window) and its multilingual vocabulary
 * (51865 tokens: the language tokens must exist for auto-detection). n_text_ctx is small, so
 * a window decodes at most n_text_ctx/2 - 4 tokens: a random model never says end-of-text.
 */
import { createCipheriv, createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { once } from 'node:events';

const GGML_MAGIC = 0x67676d6c;
const F32 = 0;

export const TEST_MODEL_HPARAMS = {
  n_vocab: 51865,
  n_audio_ctx: 1500,
  n_audio_state: 32,
  n_audio_head: 2,
  n_audio_layer: 1,
  n_text_ctx: 32,
  n_text_state: 32,
  n_text_head: 2,
  n_text_layer: 1,
  n_mels: 80,
  ftype: 0,
} as const;
/** Text tokens in the file (GPT-2's byte-pair vocabulary size); the loader names the special ones. */
const TEXT_TOKENS = 50257;
const N_FFT = 201;
const SPACE_TOKEN = 220;

/**
 * Deterministic pseudo-random numbers in [0, 1): AES-128-CTR of zeros under a key made from the
 * seed, so every run writes the same bytes.
 */
function randomStream(seed: number): (count: number) => Float64Array {
  const key = createHash('sha256').update(`whisper-test-model-${seed}`).digest().subarray(0, 16);
  const cipher = createCipheriv('aes-128-ctr', key, Buffer.alloc(16));
  return (count) => {
    const bytes = cipher.update(Buffer.alloc(count * 4));
    const values = new Float64Array(count);
    for (let i = 0; i < count; i++) values[i] = bytes.readUInt32LE(4 * i) / 4294967296;
    return values;
  };
}

const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'be', 'da', 'fu', 'go', 'hi', 'ja', 'pe', 'zu'];

/**
 * Writes the model to `file`; returns its sha256 (hex), as WHISPER_MODEL_SHA256 would pin it.
 * A `damaged` model loads but makes whisper.cpp fail on every transcription.
 */
export async function writeTestWhisperModel(
  file: string,
  { seed = 14, damaged = false }: { seed?: number; damaged?: boolean } = {},
): Promise<string> {
  const h = TEST_MODEL_HPARAMS;
  const random = randomStream(seed);
  const out = createWriteStream(file);
  const write = async (buffer: Buffer) => {
    if (!out.write(buffer)) await once(out, 'drain');
  };
  const ints = (...values: number[]) => {
    const b = Buffer.alloc(4 * values.length);
    for (const [i, v] of values.entries()) b.writeInt32LE(v, 4 * i);
    return b;
  };
  const floats = (values: ArrayLike<number>) => {
    const b = Buffer.alloc(4 * values.length);
    for (let i = 0; i < values.length; i++) b.writeFloatLE(values[i]!, 4 * i);
    return b;
  };

  const magic = Buffer.alloc(4);
  magic.writeUInt32LE(GGML_MAGIC);
  await write(magic);
  await write(
    ints(
      h.n_vocab,
      h.n_audio_ctx,
      h.n_audio_state,
      h.n_audio_head,
      h.n_audio_layer,
      h.n_text_ctx,
      h.n_text_state,
      h.n_text_head,
      h.n_text_layer,
      h.n_mels,
      h.ftype,
    ),
  );
  // Mel filters: small positive weights, so the spectrogram is finite.
  await write(ints(h.n_mels, N_FFT));
  await write(floats(random(h.n_mels * N_FFT).map((x) => x * 0.01)));
  // Vocabulary: pronounceable nonsense words, so the transcript reads as words; the decoder looks
  // up " " by name (GPT-2's token 220), so it must exist.
  const vocabulary: Buffer[] = [ints(TEXT_TOKENS)];
  for (let i = 0; i < TEXT_TOKENS; i++) {
    // `damaged`: no " ", so whisper.cpp throws while decoding (a model that loads but fails).
    const word = Buffer.from(
      i === SPACE_TOKEN && !damaged
        ? ' '
        : ` ${SYLLABLES[i % 16]}${SYLLABLES[(i >> 4) % 16]}${SYLLABLES[(i >> 8) % 16]}`,
      'latin1',
    );
    vocabulary.push(ints(word.length), word);
  }
  await write(Buffer.concat(vocabulary));

  const tensor = async (name: string, ne: number[], init: 'random' | 'ones' | 'zeros' = 'random') => {
    const count = ne.reduce((a, b) => a * b, 1);
    const nameBytes = Buffer.from(name, 'latin1');
    await write(Buffer.concat([ints(ne.length, nameBytes.length, F32), ints(...ne), nameBytes]));
    await write(
      floats(
        init === 'random'
          ? random(count).map((x) => (x - 0.5) * 0.1)
          : new Float64Array(count).fill(init === 'ones' ? 1 : 0),
      ),
    );
  };
  const s = h.n_audio_state;
  const attention = async (prefix: string) => {
    await tensor(`${prefix}.query.weight`, [s, s]);
    await tensor(`${prefix}.query.bias`, [s], 'zeros');
    await tensor(`${prefix}.key.weight`, [s, s]);
    await tensor(`${prefix}.value.weight`, [s, s]);
    await tensor(`${prefix}.value.bias`, [s], 'zeros');
    await tensor(`${prefix}.out.weight`, [s, s]);
    await tensor(`${prefix}.out.bias`, [s], 'zeros');
  };
  const block = async (prefix: string, cross: boolean) => {
    await tensor(`${prefix}.mlp_ln.weight`, [s], 'ones');
    await tensor(`${prefix}.mlp_ln.bias`, [s], 'zeros');
    await tensor(`${prefix}.mlp.0.weight`, [s, 4 * s]);
    await tensor(`${prefix}.mlp.0.bias`, [4 * s], 'zeros');
    await tensor(`${prefix}.mlp.2.weight`, [4 * s, s]);
    await tensor(`${prefix}.mlp.2.bias`, [s], 'zeros');
    await tensor(`${prefix}.attn_ln.weight`, [s], 'ones');
    await tensor(`${prefix}.attn_ln.bias`, [s], 'zeros');
    await attention(`${prefix}.attn`);
    if (cross) {
      await tensor(`${prefix}.cross_attn_ln.weight`, [s], 'ones');
      await tensor(`${prefix}.cross_attn_ln.bias`, [s], 'zeros');
      await attention(`${prefix}.cross_attn`);
    }
  };

  await tensor('encoder.positional_embedding', [s, h.n_audio_ctx]);
  await tensor('encoder.conv1.weight', [3, h.n_mels, s]);
  await tensor('encoder.conv1.bias', [1, s], 'zeros');
  await tensor('encoder.conv2.weight', [3, s, s]);
  await tensor('encoder.conv2.bias', [1, s], 'zeros');
  await tensor('encoder.ln_post.weight', [s], 'ones');
  await tensor('encoder.ln_post.bias', [s], 'zeros');
  for (let i = 0; i < h.n_audio_layer; i++) await block(`encoder.blocks.${i}`, false);
  await tensor('decoder.positional_embedding', [s, h.n_text_ctx]);
  await tensor('decoder.token_embedding.weight', [s, h.n_vocab]);
  await tensor('decoder.ln.weight', [s], 'ones');
  await tensor('decoder.ln.bias', [s], 'zeros');
  for (let i = 0; i < h.n_text_layer; i++) await block(`decoder.blocks.${i}`, true);

  out.end();
  await once(out, 'finish');
  return createHash('sha256')
    .update(await readFile(file))
    .digest('hex');
}
