/**
 * Tokenizers the chunker counts with. `words` counts whitespace-separated words; a BPE tokenizer
 * (cl100k through js-tiktoken) plugs in as another entry of TOKENIZERS with the same interface.
 */
export interface Tokenizer {
  readonly id: string;
  /** Tokens in `text`. */
  count(text: string): number;
  /**
   * `text` cut into pieces of at most `max` tokens each, in order, at word boundaries where the
   * tokenizer can (a piece is never empty; joined with single spaces they give back the words).
   */
  split(text: string, max: number): string[];
  /** The last tokens of `text`, at most `max` of them (overlap between chunks), at a word boundary. */
  tail(text: string, max: number): string;
}

const words = (text: string) => text.split(/\s+/).filter(Boolean);

export const wordsTokenizer: Tokenizer = {
  id: 'words',
  count: (text) => words(text).length,
  split(text, max) {
    const all = words(text);
    const pieces: string[] = [];
    for (let i = 0; i < all.length; i += Math.max(1, max)) pieces.push(all.slice(i, i + Math.max(1, max)).join(' '));
    return pieces;
  },
  tail(text, max) {
    if (max <= 0) return '';
    return words(text).slice(-max).join(' ');
  },
};

export const TOKENIZERS = { words: wordsTokenizer } as const satisfies Record<string, Tokenizer>;
export type TokenizerId = keyof typeof TOKENIZERS;
