/**
 * Tokenizers the chunker counts with. `words` counts whitespace-separated words; `cl100k` is the
 * BPE of OpenAI's embedding models (text-embedding-3-*, ada-002) through js-tiktoken, loaded on first
 * use since its ranks are a megabyte of JavaScript.
 */
export interface Tokenizer {
  readonly id: string;
  /** Tokens in `text`. */
  count(text: string): number;
  /**
   * `text` cut into pieces of at most `max` tokens each, in order, at word boundaries where the
   * tokenizer can (a piece is never empty; joined with single spaces they give back the words).
   * A word longer than `max` (a run of CJK text has no spaces) is cut between characters.
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

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

/**
 * The finer units a word is cut into when it alone is over the limit: characters as a reader sees
 * them, then code points (a family emoji is one grapheme of a dozen tokens; a code point is at most
 * four, one a UTF-8 byte).
 */
const finer = [
  (text: string) => Array.from(graphemes.segment(text), (s) => s.segment),
  (text: string) => Array.from(text),
];

/**
 * The most units (1 to `available`) whose text `fits`: doubling, then halving between the last
 * that fit and the first that did not, so a search costs about the length of what it returns.
 * 0 when even one unit does not fit. A BPE count grows with the text almost always; what is
 * returned was checked.
 */
function most(available: number, textOf: (n: number) => string, fits: (text: string) => boolean): number {
  if (available <= 0 || !fits(textOf(1))) return 0;
  let good = 1;
  let bad = available + 1;
  for (let step = 2; step < bad; step *= 2) {
    if (!fits(textOf(step))) {
      bad = step;
      break;
    }
    good = step;
  }
  while (bad - good > 1) {
    const mid = (good + bad) >> 1;
    if (fits(textOf(mid))) good = mid;
    else bad = mid;
  }
  return good;
}

/** `text` cut into pieces that each `fit`: whole words where possible, then characters, then code points. */
function cutToFit(text: string, fits: (text: string) => boolean): string[] {
  const pieces: string[] = [];
  const cut = (units: string[], glue: string, level: number) => {
    for (let i = 0; i < units.length; ) {
      const run = most(units.length - i, (n) => units.slice(i, i + n).join(glue), fits);
      if (run > 0) {
        pieces.push(units.slice(i, i + run).join(glue));
        i += run;
        continue;
      }
      // Not even this one unit fits: its finer units, or the unit as it is at the finest level.
      if (level < finer.length) cut(finer[level]!(units[i]!), '', level + 1);
      else pieces.push(units[i]!);
      i += 1;
    }
  };
  cut(words(text), ' ', 0);
  return pieces;
}

/** The longest end of `text` that `fits`: whole words, else the last word's last characters. */
function endToFit(text: string, fits: (text: string) => boolean): string {
  const all = words(text);
  if (!all.length) return '';
  const run = most(all.length, (n) => all.slice(-n).join(' '), fits);
  if (run > 0) return all.slice(-run).join(' ');
  const characters = finer[0]!(all.at(-1)!);
  const kept = most(characters.length, (n) => characters.slice(-n).join(''), fits);
  return kept > 0 ? characters.slice(-kept).join('') : '';
}

/** Pieces longer than this (bytes) are merged by `mergeCount` rather than js-tiktoken's quadratic loop. */
const LONG_PIECE_BYTES = 256;

/**
 * Tokens of one pre-split piece under byte-pair encoding: repeatedly merge the adjacent pair whose
 * merged bytes have the lowest rank (the leftmost on ties), as tiktoken does, with a heap instead of a
 * scan per merge. js-tiktoken rescans every pair at every merge, which takes minutes on a run of
 * thousands of letters with no space (CJK text, a long identifier); this takes milliseconds.
 */
function mergeCount(bytes: Uint8Array, rankOf: (key: string) => number | undefined): number {
  const n = bytes.length;
  if (n <= 1) return n;
  const key = (start: number, end: number) => bytes.subarray(start, end).join(',');
  if (rankOf(key(0, n)) !== undefined) return 1;
  // Parts as a linked list of starts: next[i] is where the part starting at i ends.
  const next = Int32Array.from({ length: n }, (_, i) => i + 1);
  const prev = Int32Array.from({ length: n }, (_, i) => i - 1);
  const alive = new Uint8Array(n).fill(1);
  // A min-heap of candidate merges (rank, start, end), ordered by rank then start.
  const heap: [number, number, number][] = [];
  const before = (a: [number, number, number], b: [number, number, number]) =>
    a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
  const push = (entry: [number, number, number]) => {
    heap.push(entry);
    for (let i = heap.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  };
  const pop = () => {
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length) {
      heap[0] = last;
      for (let i = 0; ; ) {
        const left = 2 * i + 1;
        const right = left + 1;
        let least = i;
        if (left < heap.length && before(heap[left]!, heap[least]!)) least = left;
        if (right < heap.length && before(heap[right]!, heap[least]!)) least = right;
        if (least === i) break;
        [heap[i], heap[least]] = [heap[least]!, heap[i]!];
        i = least;
      }
    }
    return top;
  };
  const offer = (start: number) => {
    if (start < 0 || next[start]! >= n) return;
    const end = next[next[start]!]!;
    const rank = rankOf(key(start, end));
    if (rank !== undefined) push([rank, start, end]);
  };
  for (let i = 0; i + 1 < n; i++) offer(i);
  let parts = n;
  while (heap.length) {
    const [, start, end] = pop();
    // Stale: a merge since changed this pair's boundaries.
    if (!alive[start] || next[start]! >= n || next[next[start]!] !== end) continue;
    const gone = next[start]!;
    alive[gone] = 0;
    next[start] = end;
    if (end < n) prev[end] = start;
    parts -= 1;
    offer(prev[start]!);
    offer(start);
  }
  return parts;
}

/**
 * cl100k_base through js-tiktoken. Counting splits the text with the encoding's own pattern (as
 * tiktoken does before BPE) and counts each piece once: the chunker recounts a growing chunk after
 * every sentence, and pieces (words with their leading space) repeat, so the BPE runs on few of them.
 */
async function loadCl100k(): Promise<Tokenizer> {
  const [{ Tiktoken }, { default: ranks }] = await Promise.all([
    import('js-tiktoken/lite'),
    import('js-tiktoken/ranks/cl100k_base'),
  ]);
  const encoding = new Tiktoken(ranks);
  // js-tiktoken's table of ranks by bytes ("104,105"), not in its types: long pieces merge on it.
  const rankMap = (encoding as unknown as { rankMap?: unknown }).rankMap;
  const rankOf = rankMap instanceof Map ? (key: string) => rankMap.get(key) as number | undefined : undefined;
  const utf8 = new TextEncoder();
  const pattern = new RegExp(ranks.pat_str, 'gu');
  const known = new Map<string, number>();
  const pieceTokens = (piece: string) => {
    let tokens = known.get(piece);
    if (tokens === undefined) {
      const bytes = utf8.encode(piece);
      // Special tokens' spellings (<|endoftext|>) are ordinary text in a document.
      tokens =
        rankOf && bytes.length > LONG_PIECE_BYTES ? mergeCount(bytes, rankOf) : encoding.encode(piece, [], []).length;
      if (known.size >= 200_000) known.clear();
      known.set(piece, tokens);
    }
    return tokens;
  };
  const count = (text: string) => {
    let tokens = 0;
    for (const [piece] of text.matchAll(pattern)) tokens += pieceTokens(piece);
    return tokens;
  };
  return {
    id: 'cl100k',
    count,
    split: (text, max) => cutToFit(text, (piece) => count(piece) <= Math.max(1, max)),
    tail: (text, max) => (max <= 0 ? '' : endToFit(text, (piece) => count(piece) <= max)),
  };
}

export const TOKENIZER_IDS = ['cl100k', 'words'] as const;
export type TokenizerId = (typeof TOKENIZER_IDS)[number];

const loading = new Map<TokenizerId, Promise<Tokenizer>>();

/** The tokenizer `id` names, loaded once per process. */
export function loadTokenizer(id: TokenizerId): Promise<Tokenizer> {
  if (id === 'words') return Promise.resolve(wordsTokenizer);
  let tokenizer = loading.get(id);
  if (!tokenizer) {
    tokenizer = loadCl100k();
    // A failed load (out of memory) is tried again by the next job rather than remembered.
    tokenizer.catch(() => loading.delete(id));
    loading.set(id, tokenizer);
  }
  return tokenizer;
}
