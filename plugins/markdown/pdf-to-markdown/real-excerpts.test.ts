/**
 * pdf-to-markdown on pinned excerpts of real PDFs (fixtures/real/README.md: source and licence):
 * outline headings, numbered headings kept as headings with their numbers, no leaked running
 * line, no table made of contents lines, sub- and superscripts inline, footnotes only with a note;
 * no table made of a definition list, justified text or margin notes; wrapped cells kept in their row.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pdfToMarkdown } from '../shared/engine/index.js';

const fixture = (name: string) =>
  new Uint8Array(readFileSync(new URL(`../testing/fixtures/real/${name}`, import.meta.url)));

describe('real excerpts', () => {
  it(
    'geradwp-fr: headings from the outline with their numbers, contents lines as text, no folio, footnotes with ' +
      'their notes',
    async () => {
      const { markdown, stats } = await pdfToMarkdown(fixture('geradwp-fr-p1-3.pdf'));
      const lines = markdown.split('\n');
      const headings = lines.filter((l) => l.startsWith('#'));
      expect(headings).toEqual(
        expect.arrayContaining(['# 1 Installation de la classe', '## 1.1 Prérequis', '## 1.2 Installation']),
      );
      // Contents lines are not headings, not list items and not a table.
      expect(headings.some((h) => /\. \. \./.test(h))).toBe(false);
      expect(lines.some((l) => l.startsWith('|'))).toBe(false);
      expect(stats.tables).toBe(0);
      expect(lines).toContain('1.1 Prérequis . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . 3');
      // The page numbers at the foot of each page are running lines.
      expect(lines.filter((l) => /^\d+$/.test(l.trim()))).toEqual([]);
      expect(stats.running_lines_stripped).toBeGreaterThanOrEqual(3);
      // Author marks point to notes that exist on the page.
      expect(markdown).toContain('Benoit Hamel[^∗]');
      expect(markdown).toContain('[^∗]: Bibliothèque, HEC Montréal');
      // The numbered steps are a list; the numbered section titles are not.
      expect(markdown).toContain('1. Créez-vous un répertoire de travail ;');
      expect(markdown).not.toMatch(/^\d+\. Installation/m);
    },
  );

  it('hepparticles: sub- and superscripts stay inline, with no footnote invented', async () => {
    const { markdown } = await pdfToMarkdown(fixture('hepparticles-p3.pdf'));
    expect(markdown).toContain('Normal particles: B<sub>d</sub><sup>0</sup>');
    expect(markdown).toContain('→ K<sup>−</sup>');
    expect(markdown).not.toContain('[^');
    expect(markdown).toContain('## 3 Package options');
    expect(markdown.split('\n').filter((l) => /^<su[bp]>/.test(l))).toEqual([]);
  });

  it('ltxdocext: a listing with line numbers is neither a table nor footnotes', async () => {
    const { markdown, stats } = await pdfToMarkdown(fixture('ltxdocext-p4.pdf'));
    expect(stats.tables).toBe(0);
    expect(markdown).not.toContain('[^');
    expect(markdown).not.toMatch(/^\|/m);
    expect(markdown).toContain('2 \\NeedsTeXFormat{LaTeX2e}[1995/12/01]%');
    expect(markdown).toContain('## 2 Code common to all modules');
  });

  it('geradwp-fr: a definition list of class options is text, not a table', async () => {
    const { markdown, stats } = await pdfToMarkdown(fixture('geradwp-fr-p4.pdf'));
    expect(stats.tables).toBe(0);
    expect(markdown).not.toMatch(/^\|/m);
    expect(markdown).toContain('gdweb La version Web d’un cahier de recherche');
  });

  it('ArsClassica: justified lines with a wide word space at one place are a paragraph, not a table', async () => {
    const { markdown, stats } = await pdfToMarkdown(fixture('arsclassica-p3.pdf'));
    expect(stats.tables).toBe(0);
    expect(markdown).toContain('I wish first of all to thank the members of the Italian');
  });

  it('stmaryrd: macro names in the margin beside documented code are not a table column', async () => {
    const { markdown, stats } = await pdfToMarkdown(fixture('stmaryrd-p5.pdf'));
    expect(stats.tables).toBe(0);
    expect(markdown).toContain('\\ds@mapsfrom');
  });

  it('mom typesetting: cells that wrap over several lines stay in their row', async () => {
    const { markdown } = await pdfToMarkdown(fixture('mom-typesetting-p1.pdf'));
    const lines = markdown.split('\n');
    // All five columns: the table across the page is not read as two columns of text (its rows are cells).
    const header = lines.indexOf('| VIN | ROBE | NEZ | BOUCHE | COMMENTAIRES |');
    expect(header).toBeGreaterThanOrEqual(0);
    expect(lines[header + 2]).toMatch(
      new RegExp(
        String.raw`^\| Peelee Island Gewürztraminer 2000 \(Canada\) \| Jaune pâle\. \| ` +
          String.raw`Frais, fruité, citronné, arômes fortes de lichee et de fruits tropicaux\. \| ` +
          String.raw`Doux, fruité, bien équilibré avec une bonne acidité\. \| Bon apéro\.`,
      ),
    );
    expect(lines[header + 3]).toMatch(
      new RegExp(
        String.raw`^\| Carau Pujol Tannat 1995 \(Uraguay\) \| Rubis foncé, violacée, presque opaque\. \| ` +
          String.raw`Belles arômes de fruits foncés \(prunes, cerises noires, cassis\)\.`,
      ),
    );
  });

  it('is deterministic on real input', async () => {
    const [a, b] = [
      await pdfToMarkdown(fixture('geradwp-fr-p1-3.pdf')),
      await pdfToMarkdown(fixture('geradwp-fr-p1-3.pdf')),
    ];
    expect(a.markdown).toBe(b.markdown);
  });

  it('gives each of several concurrent runs in one process the same Markdown as alone (no shared state)', async () => {
    const names = ['geradwp-fr-p1-3.pdf', 'hepparticles-p3.pdf'];
    const twoColumns = new URL('../../../bench/markdown/layouts/files/tc-long.pdf', import.meta.url);
    const inputs = [...names.map(fixture), new Uint8Array(readFileSync(twoColumns))];
    const alone: string[] = [];
    for (const input of inputs) alone.push((await pdfToMarkdown(input)).markdown);
    const together = await Promise.all([...inputs, ...inputs].map((input) => pdfToMarkdown(input)));
    expect(together.map((r) => r.markdown)).toEqual([...alone, ...alone]);
  });

  it('reports a damaged page as a failure, never as a shorter document', async () => {
    const bytes = fixture('hepparticles-p3.pdf');
    const text = Buffer.from(bytes).toString('latin1');
    // Cut the file inside its first content stream: the page cannot be read.
    const cut = text.indexOf('stream') + 40;
    await expect(pdfToMarkdown(bytes.slice(0, cut))).rejects.toThrow(/not a readable PDF/);
  });
});
