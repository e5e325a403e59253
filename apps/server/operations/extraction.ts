/**
 * The extraction tools' operations, from the registry (their manifests): one submit and one poll per
 * tool, with the tool's option fields and, for the spec's tools, their typed rows.
 */
import { z } from 'zod';
import {
  EXTRACTION_RESULT_SECONDS,
  PLANS,
  batchAcceptedSchema,
  extractionPollSchema,
  extractionPollSchemaOf,
  extractionRowSchema,
  extractionRowSchemas,
  isSpecExtractionTool,
  typedExtractionPollSchema,
} from '../../../schema/index.js';
import type { CapabilityService, ExtractionToolInfo } from '../../../core/services/capabilities.js';
import type { Principal, Services } from '../../../core/services/index.js';
import { camelCase, optionsTypeName, pascalCase } from '../naming.js';
import type { JsonSchema } from '../json-schema.js';
import { WEBHOOK_URL_DESCRIPTION, extractionForm } from './fields.js';
import { BATCH_ID_INPUT, defineOperation, type AnyOperation, type Submission } from './operation.js';
import { NO_OPTIONS } from './options.js';

/** The poll answer of each spec tool, typed by its rows (`ParseCvPoll`...), made once: the document refers to them. */
export const extractionPollSchemas: Record<string, { component: string; schema: z.ZodType }> = Object.fromEntries(
  Object.keys(extractionRowSchemas).map((tool) => [
    tool,
    { component: `${pascalCase(tool)}Poll`, schema: extractionPollSchemaOf(tool) },
  ]),
);

/** Another tool's poll typed by the row zod of its manifest, made once per row zod (the document names it once). */
const declaredPolls = new WeakMap<z.ZodObject, z.ZodType>();
function declaredPoll(row: z.ZodObject): z.ZodType {
  let poll = declaredPolls.get(row);
  if (!poll) {
    poll = typedExtractionPollSchema(extractionRowSchema.extend(row.shape));
    declaredPolls.set(row, poll);
  }
  return poll;
}

/** A tool's poll answer: the spec's, or typed by its manifest's row zod, or untyped rows. */
function pollOf({ tool, row }: ExtractionToolInfo) {
  const spec = extractionPollSchemas[tool];
  if (spec) return spec;
  if (row) return { component: `${pascalCase(tool)}Poll`, schema: declaredPoll(row) };
  return { component: 'ExtractionPoll', schema: extractionPollSchema };
}

/** The operationId of a tool's submit (`parseCv`). */
export const extractionSubmitName = (tool: string) => camelCase(tool);

const TRIAL =
  'Free plan: one free call with one file per tool (a second call is FORBIDDEN with `extensions.reason` ' +
  '"trial_used", several files "trial_single_file").';

/** A tool's GraphQL mutation, described from its manifest. */
function mutationDescription(info: ExtractionToolInfo): string {
  const installed = info.pluginId ? '' : '; not installed on this server';
  const where = `${PLANS[info.plan].label} and up; same as POST /api/${info.tool}${installed}`;
  const reads = info.inputs.length ? ` (${info.inputs.join(', ')})` : '';
  const files = `at most ${info.maxFiles} files${reads}, charged per file`;
  const totals = Object.entries(info.summary).map(([name, { sum }]) => `; its ${name} sums the rows' ${sum}`);
  const follow = `Follow with \`extraction(tool: "${info.tool}", id)\`${totals.join('')}.`;
  return `${info.title} (${where}): ${files}.${info.freeTrial ? ` ${TRIAL}` : ''} ${follow}`;
}

/** One submit and one poll per extraction tool of the registry (the REST handlers get the services per call). */
export function extractionOperations(capabilities: CapabilityService): AnyOperation[] {
  const tools = capabilities.extractionTools();
  const toolNames = tools.map((info) => info.tool).join(', ');
  return tools.flatMap((info): AnyOperation[] => {
    const { tool, title, pluginId, inputs, maxFiles, plan: lowest, freeTrial, summary } = info;
    const plan = PLANS[lowest].label;
    const totals = Object.entries(summary)
      .map(([name, { sum }]) => ` The poll answer's \`${name}\` sums the rows' \`${sum}\`.`)
      .join('');
    const poll = pollOf(info);
    // Typed by the tool's rows for the spec's tools; any tool's rows on the way out (AppRouter types the spec's).
    const trpcPoll: z.ZodType = isSpecExtractionTool(tool)
      ? typedExtractionPollSchema(extractionRowSchemas[tool])
      : extractionPollSchema;
    const submit = (services: Services, principal: Principal, submission: Submission) => {
      const { files, options = NO_OPTIONS, viaApi, webhookUrl } = submission;
      return services.extractions.accept(principal, tool, { uploads: files, ...options, viaApi, webhookUrl });
    };
    return [
      defineOperation({
        name: extractionSubmitName(tool),
        method: 'POST',
        path: `/api/${tool}`,
        tag: 'Extraction',
        plan: lowest,
        admit: (services, principal) => services.extractions.admit(principal, tool),
        tooManyFiles: (services, principal) => services.extractions.tooManyFiles(principal, tool),
        summary: `${title} (${plan} and up${freeTrial ? '; one free try on Free' : ''})`,
        description:
          `Up to ${maxFiles} files, one result row per file, charged per file. Files that cannot be taken are ` +
          'listed in `errors`. ' +
          (freeTrial
            ? 'A Free key gets one free call with one file per tool; it is given back if that job fails. '
            : '') +
          (pluginId ? `Reads: ${inputs.join(', ')}. ` : 'Answers 400 when the tool is not installed on this server. ') +
          `Poll statusUrl (\`/api/${tool}/{id}\`).${totals}`,
        files: 'many files',
        form: extractionForm(info.options as JsonSchema, maxFiles),
        output: { status: 200, description: 'Accepted.', schema: batchAcceptedSchema, component: 'BatchAccepted' },
        errors: ['400', '401', '402', '403', '413', '429'],
        errorDescriptions: {
          '403':
            'Not allowed on this plan (`code`: `plan_required`), or the free try is spent (`code`: `trial_used`) ' +
            'or was sent several files (`code`: `trial_single_file`).',
        },
        submit,
        trpc: { path: `extraction.${extractionSubmitName(tool)}` },
        graphql: {
          root: 'mutation',
          type: 'BatchAccepted',
          description: mutationDescription(info),
          args: {
            files: { type: 'Upload', list: true, required: true, description: 'The files to read, one row each.' },
            webhookUrl: { type: 'String', description: WEBHOOK_URL_DESCRIPTION },
          },
          optionArguments: { pluginId, schema: info.options as JsonSchema, typeName: optionsTypeName(tool) },
        },
      }),
      defineOperation({
        name: `get${pascalCase(tool)}Results`,
        method: 'GET',
        path: `/api/${tool}/{id}`,
        tag: 'Extraction',
        summary: `${title} results`,
        description:
          "One row per file: `filename`, `status`, and when completed the tool's fields (when failed, `error`). " +
          `Kept for ${EXTRACTION_RESULT_SECONDS / 3600} hour.`,
        files: 'none',
        params: z.object({ id: z.string().meta({ description: 'batchId of the submit answer.' }) }),
        // A tool's rows may carry fields beyond its documented row (a plugin's own): sent as they are.
        output: {
          status: 200,
          description: 'The rows so far.',
          schema: poll.schema,
          component: poll.component,
          loose: true,
        },
        errors: ['401', '403', '404', '429'],
        run: (services, principal, { id }) => services.extractions.poll(principal, tool, id),
        // Named `batchId` here, as the other batch procedures.
        trpc: {
          path: `extraction.${extractionSubmitName(tool)}Results`,
          input: BATCH_ID_INPUT,
          toInput: ({ batchId }) => ({ id: batchId }),
          output: trpcPoll,
          answer: (rows) => rows,
        },
        graphql: {
          root: 'query',
          field: 'extraction',
          type: 'ExtractionPoll',
          description:
            'An extraction batch of the caller (same as GET /api/<tool>/{id}): NOT_FOUND when unknown or older ' +
            "than an hour, FORBIDDEN for another key holder's batch.",
          args: {
            tool: { type: 'String', required: true, description: `The tool the batch was sent to: ${toolNames}.` },
            id: { type: 'ID', description: 'batchId of the mutation answer.' },
          },
          dispatch: { arg: 'tool', value: tool, noun: 'extraction tool' },
          // The tool decides the rows' types (graphql/extraction.ts).
          answer: (poll) => ({ tool, poll }),
        },
      }),
    ];
  });
}
