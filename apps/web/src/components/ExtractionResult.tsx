/**
 * Extraction rows as people read them: the Markdown rendered (micromark: CommonMark + GFM tables,
 * raw HTML escaped and unsafe link protocols dropped by default), search hits with the match
 * marked, CV fields with low-confidence values flagged (below 0.8, as the spec says), transcripts
 * with their segments; any other tool's fields as a plain table.
 */
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';
import { useMemo, useState } from 'preact/hooks';
import { labelOf } from '../schema-form.ts';

export interface Row {
  filename: string;
  status: string;
  error: string | null;
  data: unknown;
}

const REVIEW_BELOW = 0.8;

type Fields = Record<string, unknown>;
const asFields = (value: unknown): Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fields) : {};
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const text = (value: unknown): string =>
  value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);

export function ExtractionResult({ tool, row }: { tool: string; row: Row }) {
  if (row.status === 'failed')
    return (
      <p class="error" role="alert">
        {row.error ?? 'This file could not be processed.'}
      </p>
    );
  if (row.status !== 'completed') return <p class="hint">{row.status === 'queued' ? 'Waiting…' : 'Working…'}</p>;
  const data = asFields(row.data);
  if (tool === 'pdf-to-markdown') return <MarkdownResult data={data} filename={row.filename} />;
  if (tool === 'file-search') return <SearchResult data={data} />;
  if (tool === 'parse-cv') return <CvResult data={data} />;
  if (tool === 'transcribe') return <TranscriptResult data={data} />;
  return <FieldsTable data={data} />;
}

const plural = (count: unknown, word: string) => `${text(count)} ${word}${Number(count) === 1 ? '' : 's'}`;
const PAGE_MARKER = /^<!-- page (\d+) -->[ \t]*$/m;

/** The Markdown as HTML, its `<!-- page N -->` markers (escaped as raw HTML otherwise) shown as dividers. */
function renderMarkdown(markdown: string): string {
  const parts = markdown.split(PAGE_MARKER);
  const render = (chunk: string) => micromark(chunk, { extensions: [gfm()], htmlExtensions: [gfmHtml()] });
  let html = render(parts[0] ?? '');
  for (let index = 1; index < parts.length; index += 2) {
    html += `<p class="page-marker">Page ${Number(parts[index])}</p>${render(parts[index + 1] ?? '')}`;
  }
  return html;
}

function MarkdownResult({ data, filename }: { data: Fields; filename: string }) {
  const [source, setSource] = useState(false);
  const markdown = text(data.markdown);
  const html = useMemo(() => renderMarkdown(markdown), [markdown]);
  const stats = asFields(data.stats);
  return (
    <div class="extraction">
      <p class="hint">
        {plural(data.pages, 'page')} · {plural(stats.headings, 'heading')} · {plural(stats.tables, 'table')} ·{' '}
        {plural(stats.words, 'word')}
      </p>
      <div class="row">
        <button type="button" aria-pressed={source} onClick={() => setSource(!source)}>
          {source ? 'Show preview' : 'Show Markdown source'}
        </button>
        <a
          class="button"
          download={`${filename.replace(/\.pdf$/i, '')}.md`}
          href={`data:text/markdown;charset=utf-8,${encodeURIComponent(markdown)}`}
        >
          Download .md
        </a>
      </div>
      {source ? (
        <pre class="source">{markdown}</pre>
      ) : (
        <div class="markdown" dangerouslySetInnerHTML={{ __html: html }} />
      )}
    </div>
  );
}

function Highlighted({ snippet, offset, length }: { snippet: string; offset: number; length: number }) {
  const start = Math.max(0, Math.min(snippet.length, offset));
  const end = Math.max(start, Math.min(snippet.length, offset + length));
  return (
    <>
      {snippet.slice(0, start)}
      <mark>{snippet.slice(start, end)}</mark>
      {snippet.slice(end)}
    </>
  );
}

function SearchResult({ data }: { data: Fields }) {
  const matches = asArray(data.matches).map(asFields);
  const count = Number(data.count ?? matches.length);
  if (data.error)
    return <p class="notice warn">Not searched: {text(data.error)} (0 hits here does not mean the text is absent).</p>;
  return (
    <div class="extraction">
      <p>
        {count} {count === 1 ? 'hit' : 'hits'}
        {data.kind ? <span class="hint"> in {text(data.kind)}</span> : null}
        {data.truncated ? <span class="hint"> (list truncated)</span> : null}
      </p>
      {matches.length ? (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Where</th>
                <th scope="col">Match</th>
              </tr>
            </thead>
            <tbody>
              {matches.map((match, index) => (
                <tr key={index}>
                  <td>{text(match.location)}</td>
                  <td>
                    <Highlighted
                      snippet={text(match.snippet)}
                      offset={Number(match.offset ?? 0)}
                      length={Number(match.length ?? 0)}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </div>
  );
}

const CV_FIELDS = ['name', 'email', 'phone', 'title', 'employer', 'location', 'linkedin', 'skills', 'years_exp'];

function CvResult({ data }: { data: Fields }) {
  const confidence = asFields(data.confidence);
  const names = [...CV_FIELDS, ...Object.keys(data).filter((key) => !CV_FIELDS.includes(key) && key !== 'confidence')];
  return (
    <div class="table-wrap">
      <table class="cv">
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">Value</th>
            <th scope="col">Confidence</th>
          </tr>
        </thead>
        <tbody>
          {names.map((name) => {
            const value = data[name];
            const score = typeof confidence[name] === 'number' ? (confidence[name] as number) : undefined;
            const low = score !== undefined && score < REVIEW_BELOW;
            return (
              <tr key={name} class={low ? 'low-confidence' : undefined}>
                <th scope="row">{labelOf(name)}</th>
                <td>
                  {Array.isArray(value)
                    ? value.map(text).join(', ')
                    : text(value) || <span class="hint">not found</span>}
                </td>
                <td>
                  {score === undefined ? '—' : `${Math.round(score * 100)}%`}
                  {low ? <span class="badge warn">check this</span> : null}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

const clock = (seconds: number) => `${Math.floor(seconds / 60)}:${String(Math.floor(seconds % 60)).padStart(2, '0')}`;

function TranscriptResult({ data }: { data: Fields }) {
  const segments = asArray(data.segments).map(asFields);
  return (
    <div class="extraction">
      <p class="hint">
        Language {text(data.language)} · {clock(Number(data.duration ?? 0))}
      </p>
      <blockquote>{text(data.text)}</blockquote>
      {segments.length ? (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">From</th>
                <th scope="col">To</th>
                <th scope="col">Text</th>
              </tr>
            </thead>
            <tbody>
              {segments.map((segment, index) => (
                <tr key={index}>
                  <td>{clock(Number(segment.start ?? 0))}</td>
                  <td>{clock(Number(segment.end ?? 0))}</td>
                  <td>{text(segment.text)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </div>
  );
}

function FieldsTable({ data }: { data: Fields }) {
  return (
    <div class="table-wrap">
      <table>
        <tbody>
          {Object.entries(data).map(([name, value]) => (
            <tr key={name}>
              <th scope="row">{labelOf(name)}</th>
              <td class="pre">{text(value)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
