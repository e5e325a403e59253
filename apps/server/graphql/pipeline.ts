/**
 * The typed inputs of createPipeline and of an export, made from the same zod as REST's
 * bodies (schema/pipelines.ts, schema/exports.ts): PipelineInput with its PipelineStepInput and
 * PipelineSourceInput, and S3ExportInput. A step's options are one plugin's typed options: those of
 * a conversion or op as convert takes them (ConvertOptions), or those of an extraction tool
 * (ExtractOptions); operations/options.ts makes them the step's fields again.
 */
import { pipelineRequestSchema, pipelineStepSchema, s3ExportSchema } from '../../../schema/index.js';
import type { Builder } from './builder.js';
import type { TypeName } from './types.js';
import { camelCase } from '../naming.js';
import { inputValue, optionFields, zodInputType, type OptionInputs } from './option-inputs.js';
import { zodJsonSchema } from './scalars.js';

export function addPipelineInputs(builder: Builder, optionInputs: OptionInputs) {
  zodInputType(
    builder,
    s3ExportSchema,
    'S3ExportInput',
    'Where an output is uploaded besides its download link: S3-compatible storage. The credentials serve that ' +
      'upload alone: never stored, logged or echoed.',
  );
  zodInputType(
    builder,
    pipelineRequestSchema.shape.input.unwrap(),
    'PipelineSourceInput',
    "Where a pipeline's input comes from when no file is sent.",
  );

  const extractPlugins = [...optionInputs.names].filter(([pluginId]) => !optionInputs.convertFields.has(pluginId));
  builder.inputType('ExtractOptions', {
    isOneOf: true,
    description:
      "The options of an extraction step: exactly one field, the tool's plugin, e.g. " +
      '{pdfToMarkdown: {pageBreaks: false}}.',
    fields: (t) =>
      extractPlugins.length
        ? Object.fromEntries(
            extractPlugins.map(([pluginId, name]) => [
              camelCase(pluginId),
              t.field({ type: name as TypeName, description: `Options of the ${pluginId} plugin.` }),
            ]),
          )
        : { none: t.boolean({ description: 'No installed extraction tool takes options: leave it out.' }) },
  });

  const stepFields = optionFields(builder, zodJsonSchema(pipelineStepSchema), 'PipelineStepInput');
  builder.inputType('PipelineStepInput', {
    description: 'One step of a pipeline: `to` or `op` (a conversion or tool op), or `extract` (last step only).',
    fields: (t) => ({
      ...Object.fromEntries(stepFields.map((field) => [field.field, t.field(inputValue(field))])),
      options: t.field({
        type: 'ConvertOptions' as TypeName,
        description: 'The options of a `to` or `op` step, as convert takes them.',
      }),
      extractOptions: t.field({
        type: 'ExtractOptions' as TypeName,
        description: 'The options of an `extract` step, as the tool takes them.',
      }),
    }),
  });

  const request = zodJsonSchema(pipelineRequestSchema).properties ?? {};
  builder.inputType('PipelineInput', {
    description: 'A pipeline as POST /api/v1/pipelines takes it: its steps, each on the previous output.',
    fields: (t) => ({
      input: t.field({
        type: 'PipelineSourceInput' as TypeName,
        description: 'Where the input comes from when no file is sent.',
      }),
      steps: t.field({
        type: ['PipelineStepInput'] as TypeName,
        required: true,
        description: 'The steps, in order (at most 10).',
      }),
      export: t.field({
        type: 'S3ExportInput' as TypeName,
        description: 'Where the final output is uploaded besides its download link.',
      }),
      webhookUrl: t.string({
        description: request.webhookUrl?.description ?? 'Where to push job.done or job.failed (Pro and up).',
      }),
    }),
  });
}
