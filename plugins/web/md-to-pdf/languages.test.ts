import { micromark } from 'micromark';
import { describe, expect, it } from 'vitest';
import { cjkLanguage, markCjkLanguages } from './languages.js';

describe('the language of a Markdown block, by its script', () => {
  it('tells Japanese, Korean, Simplified and Traditional Chinese apart, and leaves other scripts alone', () => {
    expect(cjkLanguage('日本語の直線と骨格のテストです')).toBe('ja');
    expect(cjkLanguage('한국어 시험입니다 (直線과 骨格)')).toBe('ko');
    expect(cjkLanguage('这是简体中文测试：直线与骨骼')).toBe('zh-Hans');
    expect(cjkLanguage('這是繁體中文測試：直線與骨骼')).toBe('zh-Hant');
    // Han alone, no telling character: Simplified, the most written.
    expect(cjkLanguage('中文')).toBe('zh-Hans');
    expect(cjkLanguage('Καλημέρα, नमस्ते, hello')).toBeUndefined();
  });

  it('marks the blocks micromark writes, nested or not, and only those holding CJK text', () => {
    const html = micromark('# 見出しです\n\nplain\n\n- 這是說明\n\n> 안녕하세요\n');
    expect(markCjkLanguages(html)).toBe(
      '<h1 lang="ja">見出しです</h1>\n<p>plain</p>\n<ul>\n<li lang="zh-Hant">這是說明</li>\n</ul>\n' +
        '<blockquote lang="ko">\n<p>안녕하세요</p>\n</blockquote>\n',
    );
  });
});
