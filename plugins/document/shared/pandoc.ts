/**
 * DOCX, ODT, RTF, EPUB, HTML and Markdown -> document model through pandoc's JSON AST (`pandoc -t
 * json`): pandoc's readers know each format's own structure (Word heading styles and numbering,
 * ODF outlines, HTML tags), and its AST is one shape for all of them. Read here: headers,
 * paragraphs, lists with their nesting and start numbers, tables with spans and header rows,
 * figures with captions, code, display math, footnotes (moved to the end, labelled in order).
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ListItem, TableCell } from '../../../schema/index.js';
import { cleanText, finishDocument, type DraftBlock } from '../../../core/contract/document/index.js';
import { PluginError, type RunContext } from '../../../core/contract/index.js';
import { pandocConvert } from '../../../core/engines/pandoc.js';
import { MAX_AST_BYTES } from './family.js';

/** pandoc's reader for each input format. */
export const PANDOC_READERS = {
  docx: 'docx',
  odt: 'odt',
  rtf: 'rtf',
  epub: 'epub',
  html: 'html',
  md: 'markdown',
} as const;
export type PandocInput = keyof typeof PANDOC_READERS;

// The AST as JSON: { t, c } nodes (pandoc-types 1.22, pandoc 2.17; 1.23 reads the same here).
interface Node {
  t: string;
  c?: unknown;
}
type Inline = Node;
type Block = Node;

function inlineText(inlines: readonly Inline[] | undefined, notes: Note[]): string {
  let out = '';
  for (const node of inlines ?? []) {
    const c = node.c as never;
    switch (node.t) {
      case 'Str':
        out += c;
        break;
      case 'Space':
      case 'SoftBreak':
      case 'LineBreak':
        out += ' ';
        break;
      case 'Emph':
      case 'Strong':
      case 'Underline':
      case 'Strikeout':
      case 'Superscript':
      case 'Subscript':
      case 'SmallCaps':
        out += inlineText(c, notes);
        break;
      case 'Quoted': {
        const [kind, inner] = c as [Node, Inline[]];
        const q = kind.t === 'SingleQuote' ? "'" : '"';
        out += q + inlineText(inner, notes) + q;
        break;
      }
      case 'Cite':
        out += inlineText((c as [unknown, Inline[]])[1], notes);
        break;
      case 'Code':
        out += (c as [unknown, string])[1];
        break;
      case 'Math': {
        const [kind, tex] = c as [Node, string];
        out += kind.t === 'DisplayMath' ? `$$${tex}$$` : `$${tex}$`;
        break;
      }
      case 'Link':
        out += inlineText((c as [unknown, Inline[]])[1], notes);
        break;
      case 'Image':
        // An image inside text reads as nothing: its alt text is not part of the sentence.
        break;
      case 'Span':
        out += inlineText((c as [unknown, Inline[]])[1], notes);
        break;
      case 'Note':
        notes.push({ blocks: c as Block[] });
        break;
      default:
        break;
    }
  }
  return out;
}

interface Note {
  blocks: Block[];
}

interface Context {
  notes: Note[];
  images: boolean;
}

function cellsOf(rows: readonly unknown[], ctx: Context, header: boolean): TableCell[][] {
  return rows.map((row) => {
    const [, cells] = row as [unknown, unknown[]];
    return cells.map((cell) => {
      const [, , rowSpan, colSpan, blocks] = cell as [unknown, unknown, number, number, Block[]];
      const text = cleanText(blocks.map((b) => plainText(b, ctx)).join(' '));
      return {
        text,
        ...(rowSpan > 1 ? { rowSpan } : {}),
        ...(colSpan > 1 ? { colSpan } : {}),
        ...(header ? { header: true } : {}),
      };
    });
  });
}

/** Any block's text flattened (table cells, list items' first lines). */
function plainText(block: Block, ctx: Context): string {
  switch (block.t) {
    case 'Plain':
    case 'Para':
      return inlineText(block.c as Inline[], ctx.notes);
    case 'Header':
      return inlineText((block.c as [number, unknown, Inline[]])[2], ctx.notes);
    case 'LineBlock':
      return (block.c as Inline[][]).map((line) => inlineText(line, ctx.notes)).join(' ');
    case 'CodeBlock':
      return (block.c as [unknown, string])[1];
    case 'BlockQuote':
    case 'Div':
      return ((block.t === 'Div' ? (block.c as [unknown, Block[]])[1] : block.c) as Block[])
        .map((b) => plainText(b, ctx))
        .join(' ');
    case 'BulletList':
      return (block.c as Block[][]).map((item) => item.map((b) => plainText(b, ctx)).join(' ')).join(' ');
    case 'OrderedList':
      return (block.c as [unknown, Block[][]])[1].map((item) => item.map((b) => plainText(b, ctx)).join(' ')).join(' ');
    default:
      return '';
  }
}

function listItems(items: Block[][], ctx: Context): ListItem[] {
  return items.map((blocks) => {
    const [first, ...rest] = blocks;
    const textual = first && (first.t === 'Plain' || first.t === 'Para');
    const text = textual ? cleanText(plainText(first, ctx)) : '';
    const children = convertBlocks(textual ? rest : blocks, ctx);
    return { id: '', text, ...(children.length ? { children: children as never } : {}) };
  });
}

/** A paragraph that is only an image: a figure (pandoc marks captioned ones with a `fig:` title). */
function figureOf(inlines: Inline[], ctx: Context): DraftBlock | undefined {
  const meaningful = inlines.filter((i) => i.t !== 'Space' && i.t !== 'SoftBreak' && i.t !== 'LineBreak');
  if (meaningful.length !== 1 || meaningful[0]!.t !== 'Image') return undefined;
  const [, alt, [, title]] = meaningful[0]!.c as [unknown, Inline[], [string, string]];
  const text = cleanText(inlineText(alt, ctx.notes));
  const captioned = title.startsWith('fig:');
  return { type: 'figure', ...(captioned && text ? { caption: text } : {}), ...(text ? { alt: text } : {}) };
}

function convertBlocks(blocks: readonly Block[], ctx: Context): DraftBlock[] {
  const out: DraftBlock[] = [];
  for (const block of blocks) {
    switch (block.t) {
      case 'Header': {
        const [level, , inlines] = block.c as [number, unknown, Inline[]];
        const text = cleanText(inlineText(inlines, ctx.notes));
        if (text) out.push({ type: 'heading', level: Math.min(6, Math.max(1, level)), text });
        break;
      }
      case 'Para':
      case 'Plain': {
        const inlines = block.c as Inline[];
        const figure = figureOf(inlines, ctx);
        if (figure) {
          out.push(figure);
          break;
        }
        const meaningful = inlines.filter((i) => i.t !== 'Space' && i.t !== 'SoftBreak');
        if (meaningful.length === 1 && meaningful[0]!.t === 'Math') {
          const [kind, tex] = meaningful[0]!.c as [Node, string];
          if (kind.t === 'DisplayMath') {
            out.push({ type: 'formula', text: tex.trim() });
            break;
          }
        }
        const text = cleanText(inlineText(inlines, ctx.notes));
        if (text) out.push({ type: 'paragraph', text });
        break;
      }
      case 'LineBlock': {
        const text = cleanText(plainText(block, ctx));
        if (text) out.push({ type: 'paragraph', text });
        break;
      }
      case 'CodeBlock': {
        const [[, classes], text] = block.c as [[string, string[]], string];
        out.push({ type: 'code', text, ...(classes[0] ? { language: classes[0] } : {}) });
        break;
      }
      case 'BlockQuote':
        out.push(...convertBlocks(block.c as Block[], ctx));
        break;
      case 'Div':
        out.push(...convertBlocks((block.c as [unknown, Block[]])[1], ctx));
        break;
      case 'BulletList':
        out.push({ type: 'list', ordered: false, items: listItems(block.c as Block[][], ctx) } as DraftBlock);
        break;
      case 'OrderedList': {
        const [[start], items] = block.c as [[number], Block[][]];
        out.push({
          type: 'list',
          ordered: true,
          ...(start !== 1 ? { start } : {}),
          items: listItems(items, ctx),
        } as DraftBlock);
        break;
      }
      case 'DefinitionList':
        for (const [term, definitions] of block.c as [Inline[], Block[][]][]) {
          const text = cleanText(inlineText(term, ctx.notes));
          if (text) out.push({ type: 'paragraph', text });
          for (const definition of definitions) out.push(...convertBlocks(definition, ctx));
        }
        break;
      case 'Table': {
        const [, caption, , head, bodies, foot] = block.c as [
          unknown,
          [unknown, Block[]],
          unknown,
          [unknown, unknown[]],
          [unknown, unknown, unknown[], unknown[]][],
          [unknown, unknown[]],
        ];
        const headRows = cellsOf(head[1], ctx, true);
        const bodyRows = bodies.flatMap(([, , intermediate, rows]) => [
          ...cellsOf(intermediate, ctx, true),
          ...cellsOf(rows, ctx, false),
        ]);
        const rows = [...headRows, ...bodyRows, ...cellsOf(foot[1], ctx, false)];
        const captionText = cleanText(caption[1].map((b) => plainText(b, ctx)).join(' '));
        if (rows.length)
          out.push({
            type: 'table',
            rows,
            headerRows: headRows.length,
            ...(captionText ? { caption: captionText } : {}),
          });
        break;
      }
      case 'Figure': {
        // pandoc 3's Figure block: its caption and content.
        const [, caption, content] = block.c as [unknown, [unknown, Block[]], Block[]];
        const captionText = cleanText(caption[1].map((b) => plainText(b, ctx)).join(' '));
        out.push({ type: 'figure', ...(captionText ? { caption: captionText } : {}) });
        void content;
        break;
      }
      default:
        break;
    }
  }
  return out;
}

function metaText(meta: Record<string, Node> | undefined, key: string, ctx: Context): string | undefined {
  const value = meta?.[key];
  if (!value) return undefined;
  if (value.t === 'MetaInlines') return cleanText(inlineText(value.c as Inline[], ctx.notes)) || undefined;
  if (value.t === 'MetaString') return cleanText(value.c as string) || undefined;
  if (value.t === 'MetaBlocks')
    return cleanText((value.c as Block[]).map((b) => plainText(b, ctx)).join(' ')) || undefined;
  return undefined;
}

/** The model of a document pandoc reads, via its JSON AST written into the run's work dir. */
export async function readWithPandoc(
  input: { path: string; format: PandocInput; filename: string },
  ctx: Pick<RunContext, 'signal' | 'remainingMs' | 'workDir'>,
  options: { images: boolean },
) {
  const output = path.join(ctx.workDir, 'document-ast.json');
  await pandocConvert(
    {
      input: input.path,
      from: PANDOC_READERS[input.format],
      to: 'json',
      output,
      workDir: ctx.workDir,
      summary: `The ${input.format.toUpperCase()} file could not be read`,
    },
    ctx,
  );
  if ((await stat(output)).size > MAX_AST_BYTES)
    throw new PluginError('The document is too large to read as structured data');
  let ast: { blocks: Block[]; meta?: Record<string, Node> };
  try {
    ast = JSON.parse(await readFile(output, 'utf8'));
  } catch (err) {
    throw new PluginError(`The ${input.format.toUpperCase()} file could not be read`, { cause: err });
  }
  const context: Context = { notes: [], images: options.images };
  const body = convertBlocks(ast.blocks, context);
  // Footnotes are read after the body (a note may hold a note): labelled 1, 2... in the order they are referenced.
  const footnotes: DraftBlock[] = [];
  for (let i = 0; i < context.notes.length; i++) {
    const text = cleanText(context.notes[i]!.blocks.map((b) => plainText(b, context)).join(' '));
    if (text) footnotes.push({ type: 'footnote', label: String(i + 1), text });
  }
  const title = metaText(ast.meta, 'title', context);
  return finishDocument({
    source: { format: input.format, filename: input.filename },
    ...(title ? { title } : {}),
    body: [...body, ...footnotes],
  });
}
