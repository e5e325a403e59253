/** The API reference page at /docs: the OpenAPI document rendered to one self-contained HTML page. */
import type { JsonSchema } from './json-schema.js';
import type { OpenApiDocument, OpenApiOperation as Operation } from './operations/openapi.js';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Inline code spans from backticks; everything else escaped. */
const prose = (text = '') => escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');

const refName = (ref: string) => ref.slice(ref.lastIndexOf('/') + 1);
const anchor = (name: string) => `schema-${name}`;

function typeOf(schema: JsonSchema): string {
  if (schema.$ref) return `<a href="#${anchor(refName(schema.$ref))}">${escapeHtml(refName(schema.$ref))}</a>`;
  if (schema.contentMediaType === 'application/json')
    return `JSON string: ${schema.contentSchema ? typeOf(schema.contentSchema) : 'any'}`;
  if (schema.contentMediaType) return 'binary';
  if (schema.enum) return `one of ${schema.enum.map((v) => `<code>${escapeHtml(String(v))}</code>`).join(', ')}`;
  if (schema.type === 'array') return `array of ${schema.items ? typeOf(schema.items) : 'any'}`;
  if (schema.type === 'object' && schema.properties) {
    const fields = Object.entries(schema.properties).map(
      ([name, field]) => `${escapeHtml(name)}${schema.required?.includes(name) ? '' : '?'}: ${typeOf(field)}`,
    );
    return `{ ${fields.join(', ')} }`;
  }
  const anyOf = schema.anyOf as JsonSchema[] | undefined;
  if (anyOf) return anyOf.map(typeOf).join(' or ');
  return escapeHtml(String(schema.type ?? 'any'));
}

function constraints(schema: JsonSchema): string {
  const parts: string[] = [];
  if (schema.minimum !== undefined) parts.push(`min ${schema.minimum}`);
  if (schema.maximum !== undefined) parts.push(`max ${schema.maximum}`);
  if (schema.pattern !== undefined) parts.push(`pattern <code>${escapeHtml(String(schema.pattern))}</code>`);
  if (schema.default !== undefined) parts.push(`default <code>${escapeHtml(JSON.stringify(schema.default))}</code>`);
  return parts.join(', ');
}

/** The page's stylesheet, one rule group a line. */
const DOCS_CSS = [
  'body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d1d1f;display:flex}',
  'nav{width:17rem;flex:none;height:100vh;position:sticky;top:0;overflow:auto;background:#f5f5f7;padding:1rem;' +
    'box-sizing:border-box;font-size:13px}',
  'nav ul{list-style:none;padding:0}nav li{margin:.3rem 0}nav a{color:inherit;text-decoration:none}',
  'main{max-width:60rem;padding:1rem 2rem 4rem;min-width:0}',
  '.op{border:1px solid #ddd;border-radius:8px;padding:.2rem 1rem 1rem;margin:1rem 0}',
  'table{border-collapse:collapse;width:100%;font-size:13px}th,td{border-top:1px solid #e5e5e5;' +
    'padding:.35rem .5rem;text-align:left;vertical-align:top}',
  'code{background:#f0f0f3;padding:0 .25rem;border-radius:3px;font-size:.92em}',
  '.method{font:bold 11px monospace;padding:.15rem .4rem;border-radius:4px;color:#fff}.get{background:#2f7d32}' +
    '.post{background:#1f5fbf}.patch{background:#8a5a00}.delete{background:#b3261e}',
  '.tag{font-size:11px;font-weight:normal;border:1px solid #bbb;border-radius:10px;padding:0 .5rem;' +
    'margin-left:.5rem}.muted{color:#777}',
].join('\n');

function fieldTable(schema: JsonSchema): string {
  const rows = Object.entries(schema.properties ?? {}).map(([name, field]) => {
    const required = schema.required?.includes(name) ? 'yes' : 'no';
    const limits = constraints(field) ? ` <span class="muted">(${constraints(field)})</span>` : '';
    return (
      `<tr><td><code>${escapeHtml(name)}</code></td><td>${typeOf(field)}</td><td>${required}</td>` +
      `<td>${prose(field.description)}${limits}</td></tr>`
    );
  });
  return `<table><tr><th>Field</th><th>Type</th><th>Required</th><th>Description</th></tr>${rows.join('')}</table>`;
}

function renderOperation(method: string, path: string, operation: Operation, document: OpenApiDocument): string {
  const id = `${method}-${path.replace(/[^A-Za-z0-9]+/g, '-')}`;
  const auth =
    operation.security?.length === 0 ? '<span class="tag">no key</span>' : '<span class="tag">Bearer key</span>';
  const parameters = operation.parameters?.length
    ? '<h4>Parameters</h4><table><tr><th>Name</th><th>In</th><th>Type</th><th>Required</th><th>Description</th></tr>' +
      `${operation.parameters
        .map(
          (p) =>
            `<tr><td><code>${p.name}</code></td><td>${p.in}</td><td>${typeOf(p.schema)}</td>` +
            `<td>${p.required ? 'yes' : 'no'}</td>` +
            `<td>${prose(p.description)} <span class="muted">${constraints(p.schema)}</span></td></tr>`,
        )
        .join('')}</table>`
    : '';
  const body = Object.entries(operation.requestBody?.content ?? {})
    .map(
      ([type, { schema }]) =>
        `<h4>Request body <code>${type}</code></h4>${schema.$ref ? `<p>${typeOf(schema)}</p>` : fieldTable(schema)}`,
    )
    .join('');
  const responses = Object.entries(operation.responses)
    .map(([status, response]) => {
      const resolved = '$ref' in response ? document.components.responses[refName(response.$ref)]! : response;
      const types = Object.entries(resolved.content ?? {})
        .map(([type, { schema }]) => `<code>${type}</code> ${typeOf(schema)}`)
        .join('; ');
      return `<tr><td><code>${status}</code></td><td>${prose(resolved.description)}</td><td>${types}</td></tr>`;
    })
    .join('');
  const heading =
    `<h3><span class="method ${method}">${method.toUpperCase()}</span> ` +
    `<code>${escapeHtml(path)}</code> ${auth}</h3>`;
  const responseTable = `<table><tr><th>Status</th><th>Meaning</th><th>Body</th></tr>${responses}</table>`;
  return `<section class="op" id="${id}">${heading}
<p><strong>${prose(operation.summary)}</strong>${operation.description ? ` ${prose(operation.description)}` : ''}</p>
${parameters}${body}<h4>Responses</h4>${responseTable}</section>`;
}

export function renderDocsPage(document: OpenApiDocument): string {
  const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ path, method, operation: operation as Operation })),
  );
  const tags = [...new Set(operations.flatMap((o) => o.operation.tags))];
  const toc = operations
    .map(
      (o) =>
        `<li><a href="#${o.method}-${o.path.replace(/[^A-Za-z0-9]+/g, '-')}"><span class="method ` +
        `${o.method}">${o.method.toUpperCase()}</span> ${escapeHtml(o.path)}</a></li>`,
    )
    .join('');
  const sections = tags
    .map(
      (tag) =>
        `<h2>${escapeHtml(tag)}</h2>${operations
          .filter((o) => o.operation.tags[0] === tag)
          .map((o) => renderOperation(o.method, o.path, o.operation, document))
          .join('')}`,
    )
    .join('');
  const schemas = Object.entries(document.components.schemas)
    .map(([name, schema]) => {
      const description = schema.description ? `<p>${prose(schema.description)}</p>` : '';
      return (
        `<section class="op" id="${anchor(name)}"><h3>${escapeHtml(name)}</h3>` +
        `${description}${fieldTable(schema)}</section>`
      );
    })
    .join('');
  const navigation =
    `<nav><strong>${escapeHtml(document.info.title)} ${escapeHtml(document.info.version)}</strong>` +
    `<ul>${toc}</ul><a href="/api/openapi.json">openapi.json</a></nav>`;
  const baseUrl = escapeHtml(document.servers[0]?.url ?? '');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(document.info.title)} reference</title>
<style>
${DOCS_CSS}
</style></head>
<body>${navigation}
<main><h1>${escapeHtml(document.info.title)}</h1><p>${prose(document.info.description)}</p>
<p>Base URL: <code>${baseUrl}</code>. Errors answer <code>{ "error": "message" }</code>.</p>
${sections}<h2>Schemas</h2>${schemas}</main></body></html>
`;
}
