/**
 * Markdown cannot say what language a paragraph is in, and the shapes of Han characters depend on it (the same
 * code point is drawn differently in Simplified and Traditional Chinese, Japanese and Korean: Chromium asks
 * fontconfig for the face of the text's language, core/engines/fonts.ts). So each block holding Han characters is
 * given the language its script shows: kana make it Japanese, Hangul Korean, and Han alone Chinese, Traditional when
 * its characters are more often the traditional forms of common words than the simplified ones.
 */

const KANA = /[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]/u;
const HANGUL = /[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]/u;
const HAN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/u;
/** Frequent characters written differently in the two Chinese scripts (simplified, then traditional). */
const SIMPLIFIED = new Set(
  '这说个们来时会为国学对发经过还没样问门见长书车马东应该让话语读写简体开关实现电网络'.split(''),
);
const TRADITIONAL = new Set(
  '這說個們來時會為國學對發經過還沒樣問門見長書車馬東應該讓話語讀寫簡體開關實現電網絡'.split(''),
);

/** The language a block's text shows by its script (only when it holds Han, kana or Hangul). */
export function cjkLanguage(text: string): string | undefined {
  if (KANA.test(text)) return 'ja';
  if (HANGUL.test(text)) return 'ko';
  if (!HAN.test(text)) return undefined;
  let simplified = 0;
  let traditional = 0;
  for (const char of text) {
    if (SIMPLIFIED.has(char)) simplified++;
    else if (TRADITIONAL.has(char)) traditional++;
  }
  return traditional > simplified ? 'zh-Hant' : 'zh-Hans';
}

/** Block elements micromark writes whose text may be in a language of its own. */
const BLOCK = /<(p|li|h[1-6]|td|th|blockquote|pre|dt|dd)>([\s\S]*?)<\/\1>/g;

/** `html` (micromark's output) with a `lang` on each block whose text is Chinese, Japanese or Korean. */
export function markCjkLanguages(html: string): string {
  return html.replace(BLOCK, (block: string, tag: string, inner: string) => {
    const lang = cjkLanguage(inner.replace(/<[^>]*>/g, ''));
    return lang ? `<${tag} lang="${lang}">${inner}</${tag}>` : block;
  });
}
