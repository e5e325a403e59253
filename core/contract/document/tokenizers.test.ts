/**
 * The cl100k tokenizer against js-tiktoken's own encoder run on whole texts (not the piece-wise,
 * cached count the chunker uses): counts agree, and chunks of English, CJK, emoji and mixed text
 * never exceed maxTokens when counted by the real tokenizer.
 */
import { Tiktoken } from 'js-tiktoken/lite';
import cl100kRanks from 'js-tiktoken/ranks/cl100k_base';
import { beforeAll, describe, expect, it } from 'vitest';
import { finishDocument } from './build.js';
import { chunkDocument } from './chunk.js';
import { loadTokenizer, type Tokenizer } from './tokenizers.js';

const reference = new Tiktoken(cl100kRanks);
const realTokens = (text: string) => reference.encode(text, [], []).length;

const ENGLISH =
  'Retrieval pipelines embed chunks of a document. Each chunk carries its heading path, so a passage about ' +
  "installing the server still says which guide it came from. Don't split a sentence; it's 3,141,592 times worse.";
// A run of CJK text has no spaces: the only cuts are between characters.
const CJK =
  '文書をデータとして扱う。見出し、段落、表、図をそれぞれノードとして持ち、検索のための断片に切り分ける。' +
  '每个片段都带有标题路径和页码，并且不会超过令牌上限。표와 목록은 가능한 한 나누지 않는다。';
const EMOJI = 'Release notes 🚀🎉 for the family 👨‍👩‍👧‍👦 edition, flags 🇫🇷🇯🇵 and skin tones 👍🏽👋🏿 included ✅.';
const SPECIAL = 'A document may spell <|endoftext|> and <|fim_prefix|> as plain text.';

const doc = finishDocument({
  source: { format: 'docx' },
  body: [
    { type: 'heading', level: 1, text: '検索の手引き 📚' },
    { type: 'paragraph', text: `${ENGLISH} ${ENGLISH}` },
    { type: 'heading', level: 2, text: 'Emoji and CJK' },
    { type: 'paragraph', text: CJK.repeat(4) },
    { type: 'paragraph', text: EMOJI.repeat(3) },
    { type: 'paragraph', text: '👨‍👩‍👧‍👦'.repeat(30) },
    { type: 'paragraph', text: SPECIAL },
    {
      type: 'table',
      headerRows: 1,
      rows: [
        [{ text: '名前' }, { text: 'Wert' }],
        ...Array.from({ length: 12 }, (_, i) => [{ text: `行 ${i} 🧪` }, { text: `值 ${i * 17}` }]),
      ],
    },
    { type: 'list', ordered: true, items: [{ text: CJK }, { text: EMOJI }, { text: ENGLISH }] },
    { type: 'code', text: 'const 変数 = "🚀";\nconsole.log(変数);', language: 'js' },
  ] as never,
});

describe('cl100k', () => {
  let cl100k: Tokenizer;
  beforeAll(async () => {
    cl100k = await loadTokenizer('cl100k');
  }, 60_000);

  it('loads once and counts exactly as js-tiktoken does on the whole text', async () => {
    expect(await loadTokenizer('cl100k')).toBe(cl100k);
    for (const text of [ENGLISH, CJK, EMOJI, SPECIAL, `${CJK}\n\n${EMOJI}  ${ENGLISH}`, '', '   ', 'a\r\n\tb'])
      expect(cl100k.count(text), text).toBe(realTokens(text));
    // Runs of letters past 256 bytes (merged by the tokenizer's own heap, not js-tiktoken's loop).
    const letters = Array.from({ length: 900 }, (_, i) => String.fromCharCode(97 + ((i * 7919) % 26))).join('');
    const unpunctuated = CJK.replace(/[\s。、，]/g, '').repeat(3);
    for (const text of [letters, 'a'.repeat(700), unpunctuated, `${unpunctuated} ${letters}`, 'ab'.repeat(400)])
      expect(cl100k.count(text), text.slice(0, 20)).toBe(realTokens(text));
    // A CJK run of 60,000 characters with no break is counted in seconds, not hours.
    const started = performance.now();
    expect(cl100k.count(unpunctuated.repeat(200))).toBeGreaterThan(10_000);
    expect(performance.now() - started).toBeLessThan(20_000);
    // cl100k is not whitespace words: a CJK sentence is one "word" of many tokens.
    expect(cl100k.count(CJK)).toBeGreaterThan(40);
    expect(cl100k.count('👨‍👩‍👧‍👦')).toBeGreaterThan(5);
  });

  it('splits at word boundaries, then between characters, never past the limit', () => {
    for (const max of [1, 2, 3, 5, 8, 30]) {
      for (const text of [ENGLISH, CJK, EMOJI, '👨‍👩‍👧‍👦👨‍👩‍👧‍👦']) {
        const pieces = cl100k.split(text, max);
        expect(pieces.length).toBeGreaterThan(0);
        for (const piece of pieces) {
          expect(piece.length).toBeGreaterThan(0);
          // A code point is at most four byte tokens: a limit under four may be passed by one alone.
          if (max >= 4) expect(realTokens(piece), `${max}: ${piece}`).toBeLessThanOrEqual(max);
        }
        // Nothing is lost or reordered (spaces aside).
        expect(pieces.join('').replace(/\s/g, '')).toBe(text.replace(/\s/g, ''));
      }
    }
    // English words stay whole.
    const words = new Set(ENGLISH.split(' '));
    for (const piece of cl100k.split(ENGLISH, 12)) for (const word of piece.split(' ')) expect(words).toContain(word);
  });

  it("keeps a tail within the overlap, from the text's end", () => {
    for (const max of [1, 4, 10, 25]) {
      for (const text of [ENGLISH, CJK, EMOJI]) {
        const tail = cl100k.tail(text, max);
        expect(realTokens(tail)).toBeLessThanOrEqual(max);
        expect(text.endsWith(tail)).toBe(true);
      }
    }
    expect(
      cl100k
        .tail(ENGLISH, 10)
        .split(' ')
        .every((w) => ENGLISH.split(' ').includes(w)),
    ).toBe(true);
    expect(cl100k.tail(CJK, 10).length).toBeGreaterThan(0);
  });

  for (const maxTokens of [16, 24, 48, 128, 512])
    for (const overlap of [0, 4])
      it(`chunks stay within ${maxTokens} real tokens, heading path included (overlap ${overlap})`, () => {
        const chunks = chunkDocument(doc, { maxTokens, overlap, mergePeers: true, tokenizer: cl100k });
        expect(chunks.length).toBeGreaterThan(0);
        for (const chunk of chunks) {
          expect(realTokens(chunk.text), chunk.text).toBeLessThanOrEqual(maxTokens);
          expect(chunk.tokens).toBe(realTokens(chunk.text));
          expect(chunk.text.startsWith(chunk.headings.join('\n'))).toBe(true);
        }
        // Every character of the body reaches some chunk: each CJK sentence, every family emoji.
        const contents = chunks.map((c) => c.content.replace(/\s/g, '')).join('');
        for (const sentence of CJK.split('。').filter(Boolean))
          expect(contents).toContain(sentence.replace(/\s/g, '').slice(0, 5));
        if (overlap === 0) {
          const families = contents.match(/👨‍👩‍👧‍👦/g) ?? [];
          // 30 in the paragraph, one in EMOJI three times, once in the list.
          expect(families.length).toBe(30 + 3 + 1);
        }
        // Table rows stand whole when they fit (a row is about 15 tokens, the heading path about 12).
        if (maxTokens >= 48)
          for (let i = 0; i < 12; i++)
            expect(chunks.some((c) => c.content.includes(`| 行 ${i} 🧪 | 值 ${i * 17} |`))).toBe(true);
      });

  it('counts the same chunks very differently from words (why maxTokens needs a real tokenizer)', async () => {
    const words = await loadTokenizer('words');
    const byWords = chunkDocument(doc, { maxTokens: 64, overlap: 0, mergePeers: true, tokenizer: words });
    expect(byWords.some((chunk) => realTokens(chunk.text) > 64)).toBe(true);
  });
});
