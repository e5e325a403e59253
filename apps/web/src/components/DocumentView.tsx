/**
 * op=structure's document model as a tree (node kinds, heading levels, tables as tables, pages) and
 * op=chunk's chunks (heading path, tokens, pages, content), read from the typed GraphQL answer
 * (`DocumentResult`). Large results show their start; the download holds the whole.
 */
import type { ResultOf } from '../graphql.ts';
import type { DocumentResult } from '../operations.ts';

type Job = NonNullable<ResultOf<typeof DocumentResult>['job']>;
export type DocumentModel = NonNullable<Job['document']>;
export type Chunks = NonNullable<Job['chunks']>;

/** A block as this view reads it: the union's fields, each present on its own kind. */
interface Block {
  __typename: string;
  id?: string;
  page?: number | null;
  level?: number;
  text?: string;
  language?: string | null;
  label?: string | null;
  caption?: string | null;
  alt?: string | null;
  headerRows?: number;
  name?: string | null;
  rows?: { text: string; rowSpan?: number | null; colSpan?: number | null; header?: boolean | null }[][];
  ordered?: boolean;
  start?: number | null;
  items?: { id?: string; page?: number | null; text?: string; children?: Block[] | null }[];
  kind?: string;
  number?: number;
  title?: string | null;
  children?: Block[] | null;
  notes?: Block[] | null;
}

/** The most top-level blocks and chunks drawn: a page of a thousand tables helps nobody. */
const SHOWN = 200;

const KIND: Record<string, string> = {
  DocumentHeading: 'heading',
  DocumentParagraph: 'paragraph',
  DocumentList: 'list',
  DocumentTable: 'table',
  DocumentFigure: 'figure',
  DocumentCode: 'code',
  DocumentFormula: 'formula',
  DocumentFootnote: 'footnote',
  DocumentSection: 'section',
  DocumentPageHeader: 'page header',
  DocumentPageFooter: 'page footer',
};

function Page({ page }: { page?: number | null }) {
  return page ? <span class="node-page">p. {page}</span> : null;
}

function TableView({ block }: { block: Block }) {
  const rows = block.rows ?? [];
  const headerRows = block.headerRows ?? 0;
  return (
    <div class="table-scroll">
      <table class="doc-table">
        {block.caption ? <caption>{block.caption}</caption> : null}
        <tbody>
          {rows.map((row, r) => (
            <tr key={r}>
              {row.map((cell, c) => {
                const Cell = r < headerRows || cell.header ? 'th' : 'td';
                return (
                  <Cell key={c} rowSpan={cell.rowSpan ?? undefined} colSpan={cell.colSpan ?? undefined}>
                    {cell.text}
                  </Cell>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function BlockView({ block }: { block: Block }) {
  const kind = KIND[block.__typename] ?? block.__typename;
  const head = (
    <span class="node-head">
      <span class="node-kind">{block.__typename === 'DocumentHeading' ? `heading ${block.level}` : kind}</span>
      <Page page={block.page} />
    </span>
  );
  let body: preact.ComponentChildren = null;
  switch (block.__typename) {
    case 'DocumentHeading':
      body = <span class={`node-text heading-${block.level}`}>{block.text}</span>;
      break;
    case 'DocumentParagraph':
    case 'DocumentFormula':
      body = <span class="node-text">{block.text}</span>;
      break;
    case 'DocumentFootnote':
      body = <span class="node-text">{block.label ? `[${block.label}] ${block.text}` : block.text}</span>;
      break;
    case 'DocumentCode':
      body = <pre class="node-code">{block.text}</pre>;
      break;
    case 'DocumentFigure':
      body = <span class="node-text">{block.caption ?? block.alt ?? ''}</span>;
      break;
    case 'DocumentTable':
      body = <TableView block={block} />;
      break;
    case 'DocumentList': {
      const List = block.ordered ? 'ol' : 'ul';
      body = (
        <List class="doc-list" start={block.start ?? undefined}>
          {(block.items ?? []).map((item, i) => (
            <li key={item.id ?? i}>
              {item.text}
              <Page page={item.page} />
              {item.children?.length ? <Tree blocks={item.children} /> : null}
            </li>
          ))}
        </List>
      );
      break;
    }
    case 'DocumentSection':
      body = (
        <>
          <span class="node-text">
            {block.kind} {block.number}
            {block.title ? `: ${block.title}` : ''}
          </span>
          {block.children?.length ? <Tree blocks={block.children} /> : null}
          {block.notes?.length ? (
            <div class="doc-notes">
              <span class="node-kind">notes</span>
              <Tree blocks={block.notes} />
            </div>
          ) : null}
        </>
      );
      break;
  }
  return (
    <li class={`node node-${kind.replace(' ', '-')}`} data-level={block.level}>
      {head}
      {body}
    </li>
  );
}

function Tree({ blocks }: { blocks: Block[] }) {
  return (
    <ol class="doc-tree">
      {blocks.map((block, i) => (
        <BlockView key={block.id ?? i} block={block} />
      ))}
    </ol>
  );
}

export function StructureView({ document }: { document: DocumentModel }) {
  const body = document.body as unknown as Block[];
  const furniture = document.furniture as unknown as Block[];
  const pages = document.pages?.length;
  return (
    <section class="doc-structure" aria-label="Document structure">
      <p class="hint">
        {body.length} top-level node{body.length === 1 ? '' : 's'}
        {pages ? `, ${pages} page${pages === 1 ? '' : 's'}` : ''} ({document.source.format})
        {body.length > SHOWN ? `; the first ${SHOWN} are shown, the download has all` : ''}
      </p>
      <Tree blocks={body.slice(0, SHOWN)} />
      {furniture.length ? (
        <details class="doc-furniture">
          <summary>Page headers and footers ({furniture.length})</summary>
          <Tree blocks={furniture.slice(0, SHOWN)} />
        </details>
      ) : null}
    </section>
  );
}

export function ChunkView({ chunks }: { chunks: Chunks }) {
  return (
    <section class="doc-chunks" aria-label="Chunks">
      <p class="hint">
        {chunks.length} chunk{chunks.length === 1 ? '' : 's'}
        {chunks.length > SHOWN ? `; the first ${SHOWN} are shown, the download has all` : ''}
      </p>
      <ol class="chunk-list">
        {chunks.slice(0, SHOWN).map((chunk) => (
          <li key={chunk.index} class="chunk">
            <p class="chunk-path">{chunk.headings.length ? chunk.headings.join(' › ') : '(no heading)'}</p>
            <p class="chunk-meta">
              <span class="chunk-tokens">{chunk.tokens} tokens</span>
              {chunk.pages ? (
                <span class="chunk-pages">
                  {chunk.pages.first === chunk.pages.last
                    ? ` · page ${chunk.pages.first}`
                    : ` · pages ${chunk.pages.first}–${chunk.pages.last}`}
                </span>
              ) : null}
            </p>
            <pre class="chunk-text">{chunk.content}</pre>
          </li>
        ))}
      </ol>
    </section>
  );
}
