/**
 * The rules of an extract plugin's `extraction` declaration (its endpoint on every surface), part
 * of manifest validation (validate.ts): the registry and the conformance kit both apply them.
 */
import { FEATURE_MIN_PLAN, SPEC_EXTRACTION_TOOLS, isSpecExtractionTool } from '../../schema/index.js';
import type { Plugin } from './index.js';

const FIELD = /^[a-z][a-zA-Z0-9]*$/;

/** Most files one extraction request may carry (the largest batch, Enterprise's, is 500). */
export const MAX_EXTRACTION_FILES = 500;

/**
 * Tool names the surfaces already use: REST paths under /api (`/api/<tool>/{id}`), GraphQL
 * mutations (the tool's name in camelCase) and tRPC's `extraction.get`. A name ending in
 * `-results` is refused too: tRPC serves each tool's poll at `extraction.<tool>Results`.
 */
const TAKEN_NAMES = new Set([
  'v1',
  'batch',
  'download',
  'pdf',
  'convert',
  'merge-pdf',
  'batch-convert',
  'create-signed-url',
  'get',
]);

/** Keys of the poll answer that a summary cannot replace. */
const POLL_FIELDS = new Set(['done', 'total', 'completed', 'failed', 'rows', 'summary']);

/** Problems with a plugin's `extraction` declaration, without the plugin prefix. */
export function extractionProblems(plugin: Plugin): string[] {
  const endpoint = plugin.extraction;
  if (plugin.kind !== 'extract') return endpoint === undefined ? [] : ['only an extract plugin declares `extraction`'];
  if (endpoint === undefined || endpoint === null || typeof endpoint !== 'object') {
    return ['an extract plugin declares its endpoint: `extraction: { maxFiles, freeTrial?, summary?, row? }`'];
  }
  const problems: string[] = [];
  const { maxFiles, freeTrial, summary, row } = endpoint;
  if (!Number.isInteger(maxFiles) || maxFiles < 1 || maxFiles > MAX_EXTRACTION_FILES)
    problems.push(`extraction.maxFiles must be an integer from 1 to ${MAX_EXTRACTION_FILES}`);
  if (freeTrial !== undefined && typeof freeTrial !== 'boolean')
    problems.push('extraction.freeTrial must be true or false');
  for (const [name, total] of Object.entries(summary ?? {})) {
    if (!FIELD.test(name) || POLL_FIELDS.has(name)) problems.push(`extraction.summary name '${name}' is not allowed`);
    if (typeof total?.sum !== 'string' || !FIELD.test(total.sum))
      problems.push(`extraction.summary.${name} must be { sum: '<row field>' }`);
  }
  if (row !== undefined && (row === null || typeof row !== 'object' || typeof row.shape !== 'object'))
    problems.push("extraction.row must be a zod object of the row's fields (z.object({ ... }))");
  const tool = plugin.op ?? '';
  if (TAKEN_NAMES.has(tool)) problems.push(`op '${tool}' is taken by another endpoint`);
  if (tool.endsWith('-results'))
    problems.push(`op '${tool}' ends in -results, which names the tRPC polls (extraction.<tool>Results)`);
  if (isSpecExtractionTool(tool)) {
    // The spec fixes the limits of its four tools: a plugin serving one keeps them.
    const spec = SPEC_EXTRACTION_TOOLS[tool];
    if (maxFiles !== spec.maxFiles)
      problems.push(`the spec sets ${tool} to ${spec.maxFiles} files per request (extraction.maxFiles)`);
    if (plugin.plan !== FEATURE_MIN_PLAN[spec.feature])
      problems.push(`the spec sets the lowest plan of ${tool} to ${FEATURE_MIN_PLAN[spec.feature]}`);
    if (freeTrial === false) problems.push(`the spec gives a free try of ${tool} to Free keys (extraction.freeTrial)`);
  }
  return problems;
}
