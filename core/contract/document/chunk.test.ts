import { describe, expect, it } from 'vitest';
import { documentSchema } from '../../../schema/index.js';
import { finishDocument } from './build.js';
import { chunkDocument } from './chunk.js';
import { renderHtml, renderMarkdown, renderText } from './render.js';
import { wordsTokenizer } from './tokenizers.js';

const sentence = (n: number) => `Sentence number ${n} has exactly seven words.`;

const document = finishDocument({
  source: { format: 'docx' },
  body: [
    { type: 'heading', level: 1, text: 'Guide' },
    { type: 'paragraph', text: 'A short opening.' },
    { type: 'heading', level: 2, text: 'Install' },
    { type: 'paragraph', text: Array.from({ length: 12 }, (_, i) => sentence(i + 1)).join(' ') },
    {
      type: 'list',
      ordered: false,
      items: [
        { text: 'first', children: [{ type: 'list', ordered: true, items: [{ text: 'nested' }] }] },
        { text: 'second' },
      ],
    },
    {
      type: 'table',
      headerRows: 1,
      rows: [
        [{ text: 'Name' }, { text: 'Value' }],
        ...Array.from({ length: 10 }, (_, i) => [{ text: `row ${i}` }, { text: `value ${i}` }]),
        [{ text: 'spanning both', colSpan: 2 }],
      ],
    },
    { type: 'heading', level: 2, text: 'Empty' },
    { type: 'heading', level: 1, text: 'Next' },
    { type: 'code', text: 'npm install\nnpm start', language: 'sh' },
  ] as never,
});

const words = (text: string) => text.split(/\s+/).filter(Boolean);

describe('chunkDocument', () => {
  for (const maxTokens of [16, 24, 40, 512])
    for (const mergePeers of [true, false])
      it(`keeps within ${maxTokens} tokens (mergePeers ${mergePeers}), heading path first, every word placed`, () => {
        const chunks = chunkDocument(document, { maxTokens, overlap: 0, mergePeers, tokenizer: wordsTokenizer });
        for (const chunk of chunks) {
          expect(chunk.tokens).toBeLessThanOrEqual(maxTokens);
          expect(chunk.tokens).toBe(words(chunk.text).length);
          expect(chunk.text.startsWith(chunk.headings.join('\n'))).toBe(true);
        }
        // Every word of the body's paragraphs is in exactly one chunk's content (no overlap asked).
        const content = chunks.flatMap((c) => words(c.content));
        expect(content.filter((w) => w === 'Sentence')).toHaveLength(12);
        expect(content.filter((w) => w === 'opening.')).toHaveLength(1);
        // A sentence is never cut when it fits: each one stands whole in some chunk.
        if (maxTokens >= 16)
          for (let n = 1; n <= 12; n++) expect(chunks.some((c) => c.content.includes(sentence(n)))).toBe(true);
        // Table rows are never split.
        for (let i = 0; i < 10; i++)
          expect(chunks.some((c) => c.content.includes(`| row ${i} | value ${i} |`))).toBe(true);
        // Heading paths follow the levels.
        expect(chunks.find((c) => c.content.includes('npm install'))!.headings).toEqual(['Next']);
        expect(chunks.find((c) => c.content.includes(sentence(3)))!.headings).toEqual(['Guide', 'Install']);
        // A heading with nothing under it still reaches a chunk.
        expect(chunks.some((c) => c.headings.join('/') === 'Guide/Empty' && c.content === '')).toBe(true);
        expect(chunks.map((c) => c.index)).toEqual(chunks.map((_, i) => i));
      });

  it("repeats a table's header row where its rows continue", () => {
    const chunks = chunkDocument(document, { maxTokens: 24, overlap: 0, mergePeers: true, tokenizer: wordsTokenizer });
    const withRows = chunks.filter((c) => c.content.includes('| row '));
    expect(withRows.length).toBeGreaterThan(1);
    for (const chunk of withRows) expect(chunk.content).toContain('| Name | Value |');
  });

  it('merges peers under one heading path into one chunk when they fit', () => {
    const merged = chunkDocument(document, { maxTokens: 512, overlap: 0, mergePeers: true, tokenizer: wordsTokenizer });
    const apart = chunkDocument(document, { maxTokens: 512, overlap: 0, mergePeers: false, tokenizer: wordsTokenizer });
    expect(merged.length).toBeLessThan(apart.length);
  });

  it('repeats the overlap from the chunk before, within the limit', () => {
    const chunks = chunkDocument(document, { maxTokens: 24, overlap: 4, mergePeers: true, tokenizer: wordsTokenizer });
    for (const chunk of chunks) expect(chunk.tokens).toBeLessThanOrEqual(24);
    const install = chunks.filter((c) => c.headings.join('/') === 'Guide/Install' && c.content.includes('Sentence'));
    expect(install.length).toBeGreaterThan(1);
    const tail = words(install[0]!.content).slice(-4).join(' ');
    expect(install[1]!.content.startsWith(tail)).toBe(true);
  });

  it('cuts a sentence longer than the limit at token boundaries', () => {
    const long = finishDocument({
      source: { format: 'md' },
      body: [{ type: 'paragraph', text: Array.from({ length: 100 }, (_, i) => `w${i}`).join(' ') }],
    });
    const chunks = chunkDocument(long, { maxTokens: 16, overlap: 0, mergePeers: true, tokenizer: wordsTokenizer });
    expect(chunks.every((c) => c.tokens <= 16)).toBe(true);
    expect(chunks.flatMap((c) => words(c.content))).toEqual(Array.from({ length: 100 }, (_, i) => `w${i}`));
  });
});

describe('renderings', () => {
  it('numbers nodes in reading order and passes the published schema', () => {
    expect(documentSchema.safeParse(document).success).toBe(true);
    expect(document.body[0]!.id).toBe('n1');
  });

  it('Markdown: ATX headings by level, nested lists, pipe tables with spans, fenced code', () => {
    const markdown = renderMarkdown(document).split('\n');
    expect(markdown).toContain('# Guide');
    expect(markdown).toContain('## Install');
    expect(markdown).toContain('- first');
    expect(markdown).toContain('  1. nested');
    expect(markdown).toContain('| Name | Value |');
    expect(markdown).toContain('| spanning both |  |');
    expect(markdown).toContain('```sh');
  });

  it('HTML keeps spans and header cells; text keeps the words', () => {
    const html = renderHtml(document);
    expect(html).toContain('<td colspan="2">spanning both</td>');
    expect(html).toContain('<th>Name</th>');
    expect(html).toContain('<ol>\n<li>nested</li>\n</ol>');
    expect(renderText(document)).toContain('row 3\tvalue 3');
  });
});
