/**
 * Extraction tools (POST /api/<tool>, GET /api/<tool>/{id}): one mutation per tool of the registry
 * (the tool's name in camelCase) answering a BatchAccepted, and `extraction(tool, id)` for the
 * rows. A mutation's arguments beside `files` are the fields of the plugin's generated
 * `<Plugin>Options` type. The plan gate (or the free try) is checked before a file is read; the
 * arguments are validated by the plugin.
 */
import type { FileUpload } from 'graphql-upload-ts';
import { PLANS, type ExtractionPoll } from '../../../schema/index.js';
import type { ExtractionToolInfo } from '../../../core/services/capabilities.js';
import type { CapabilityService } from '../../../core/services/capabilities.js';
import type { BatchAccepted, addBatch } from './batch.js';
import type { Builder, GraphQLContext } from './builder.js';
import type { JsonSchema } from '../json-schema.js';
import { camelCase, inputValue, optionFields, optionsTypeName, type OptionInputs } from './option-inputs.js';
import { addRowTypes } from './extraction-rows.js';
import { argumentOptions } from '../operations/options.js';
import { extractionSubmitName } from '../operations/extraction.js';
import { submitOf } from '../operations/table.js';
import { stageUploads } from './uploads.js';
import { WEBHOOK_URL_DESCRIPTION } from './webhooks.js';

/** A poll with the tool it was asked for: the tool decides the rows' types. */
interface ToolPoll {
  tool: string;
  poll: ExtractionPoll;
}

const TRIAL =
  'Free plan: one free call with one file per tool (a second call is FORBIDDEN with `extensions.reason` ' +
  '"trial_used", several files "trial_single_file").';

async function submit(
  { services, principal }: GraphQLContext,
  tool: string,
  files: Array<Promise<FileUpload>>,
  fields: Record<string, unknown>,
  webhookUrl: string | undefined,
): Promise<BatchAccepted> {
  const maxFiles = services.extractions.admit(principal, tool);
  const uploads = await stageUploads(services, principal, files, maxFiles, () =>
    services.extractions.tooManyFiles(principal, tool),
  );
  const submit = submitOf(services, extractionSubmitName(tool));
  // The table's submit of the tool answers its BatchAccepted (typed loosely: the tools come from the registry).
  const { statusUrl: _statusUrl, ...accepted } = (await submit(services, principal, {
    files: uploads,
    options: argumentOptions(fields),
    viaApi: !principal.session,
    webhookUrl,
  })) as BatchAccepted & { statusUrl: string };
  return accepted;
}

/** A tool's mutation, described from its manifest. */
function mutationDescription(info: ExtractionToolInfo): string {
  const where =
    `${PLANS[info.plan].label} and up; same as POST ` +
    `/api/${info.tool}${info.pluginId ? '' : '; not installed on this server'}`;
  const inputs = info.inputs.length ? ` (${info.inputs.join(', ')})` : '';
  const files = `at most ${info.maxFiles} files${inputs}, charged per file`;
  const totals = Object.entries(info.summary).map(([name, { sum }]) => `its ${name} sums the rows' ${sum}`);
  return (
    `${info.title} (${where}): ${files}.${info.freeTrial ? ` ${TRIAL}` : ''} Follow with \`extraction(tool: ` +
    `"${info.tool}", id)\`${totals.map((total) => `; ${total}`).join('')}.`
  );
}

export function addExtraction(
  builder: Builder,
  BatchAcceptedRef: ReturnType<typeof addBatch>,
  capabilities: CapabilityService,
  optionInputs: OptionInputs,
) {
  const tools = capabilities.extractionTools();
  const RowRef = addRowTypes(builder);

  const PollRef = builder.objectRef<ToolPoll>('ExtractionPoll').implement({
    description: 'An extraction batch now: poll until done (results are kept for 1 hour).',
    fields: (t) => ({
      done: t.boolean({ description: 'Every file completed or failed.', resolve: ({ poll }) => poll.done }),
      total: t.int({ description: 'Files accepted.', resolve: ({ poll }) => poll.total }),
      completed: t.int({ description: 'Files completed.', resolve: ({ poll }) => poll.completed }),
      failed: t.int({ description: 'Files failed.', resolve: ({ poll }) => poll.failed }),
      rows: t.field({
        type: [RowRef],
        description:
          'One per accepted file, in the order sent; typed by tool (`... on PdfToMarkdownRow { markdown }`).',
        resolve: ({ tool, poll }) => poll.rows.map((row) => ({ tool, row })),
      }),
      totalHits: t.int({
        nullable: true,
        description: 'File-search only: the hits over every file.',
        resolve: ({ poll }) => poll.totalHits ?? null,
      }),
      summary: t.field({
        type: 'JSON',
        nullable: true,
        description:
          'The totals the tool declares over its rows, as one object (file-search: totalHits); null when it declares ' +
          'none.',
        resolve: ({
          poll: { done: _done, total: _total, completed: _completed, failed: _failed, rows: _rows, ...totals },
        }) => (Object.keys(totals).length ? totals : null),
      }),
    }),
  });

  builder.queryField('extraction', (t) =>
    t.field({
      type: PollRef,
      nullable: true,
      description:
        `An extraction batch of the caller (same as GET /api/<tool>/{id}): NOT_FOUND when unknown or ` +
        `older than an hour, FORBIDDEN for another key holder's batch.`,
      args: {
        tool: t.arg.string({
          required: true,
          description: `The tool the batch was sent to: ${tools.map((info) => info.tool).join(', ')}.`,
        }),
        id: t.arg.id({ required: true, description: 'batchId of the mutation answer.' }),
      },
      resolve: async (_root, { tool, id }, { services, principal }) => ({
        tool,
        poll: await services.extractions.poll(principal, tool, String(id)),
      }),
    }),
  );

  // One mutation per tool; its arguments beside `files` are the fields of the plugin's options type.
  for (const info of tools) {
    const fields = info.pluginId
      ? (optionInputs.fields.get(info.pluginId) ?? [])
      : optionFields(builder, info.options as JsonSchema, optionsTypeName(info.tool));
    builder.mutationField(camelCase(info.tool), (t) =>
      t.field({
        type: BatchAcceptedRef,
        nullable: true,
        description: mutationDescription(info),
        args: {
          files: t.arg({ type: ['Upload'], required: true, description: 'The files to read, one row each.' }),
          ...Object.fromEntries(fields.map((field) => [field.field, t.arg(inputValue(field))])),
          webhookUrl: t.arg.string({ description: WEBHOOK_URL_DESCRIPTION }),
        },
        resolve: (_root, { files, webhookUrl, ...fields }, context) =>
          submit(context, info.tool, files, fields, (webhookUrl as string | null | undefined) ?? undefined),
      }),
    );
  }
}
