/** Text that looks like Markdown's raw HTML stays text (pseudocode.pdf writes `<stmt>`). */
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from './markdown.js';

describe('raw HTML in text', () => {
  it('escapes a tag-like word in paragraphs, headings and cells, and keeps the scripts the engine writes', () => {
    const markdown = renderMarkdown(
      [
        { kind: 'heading', page: 1, level: 2, text: 'The <stmt> notation' },
        {
          kind: 'paragraph',
          page: 1,
          parts: [{ page: 1, text: '\\IF <condition> \\THEN <stmt>, x < y, mc<sup>2</sup>' }],
        },
        { kind: 'table', page: 1, rows: [['\\FOR <var>', '</end>']] },
      ],
      1,
      false,
    );
    expect(markdown).toBe(
      [
        '## The \\<stmt> notation',
        '\\IF \\<condition> \\THEN \\<stmt>, x < y, mc<sup>2</sup>',
        '| \\FOR \\<var> | \\</end> |\n| --- | --- |',
      ]
        .join('\n\n')
        .concat('\n'),
    );
  });

  it('escapes text that reads as a link, and keeps footnote references', () => {
    const markdown = renderMarkdown(
      [
        {
          kind: 'paragraph',
          page: 1,
          parts: [{ page: 1, text: '\\psframe[fillstyle=solid](0,2)(5,3) x[^1] [a] (b) y[^2](see)' }],
        },
      ],
      1,
      false,
    );
    expect(markdown).toBe('\\psframe\\[fillstyle=solid](0,2)(5,3) x[^1] [a] (b) y[^2](see)\n');
  });
});
