/** Formats: what this server converts and which ops it runs (services.capabilities, as REST and tRPC). */
import type { OperationInfo } from '../../../core/registry/index.js';
import type { Formats } from '../../../core/services/capabilities.js';
import type { Builder } from './builder.js';
import type { OptionInputs } from './option-inputs.js';

interface Conversion {
  from: string;
  to: string[];
}

interface FormatsListing {
  conversions: Conversion[];
  operations: OperationInfo[];
}

/** The listing in GraphQL's shape, built again only when the service's cached value changed. */
function formatsListing(): (formats: Formats) => FormatsListing {
  let source: Formats | undefined;
  let listing: FormatsListing | undefined;
  return (formats) => {
    if (formats !== source || !listing) {
      source = formats;
      listing = {
        conversions: Object.entries(formats.conversions).map(([from, to]) => ({ from, to })),
        operations: formats.operations,
      };
    }
    return listing;
  };
}

export function addFormats(builder: Builder, { names: optionTypeNames, convertFields }: OptionInputs) {
  const listingOf = formatsListing();
  const ConversionRef = builder.objectRef<Conversion>('Conversion').implement({
    description: 'The `to` values one input format converts to.',
    fields: (t) => ({
      from: t.exposeString('from', { description: 'The input format (lower-case extension).' }),
      to: t.exposeStringList('to', { description: 'The formats it converts to.' }),
    }),
  });

  const OperationRef = builder.objectRef<OperationInfo>('Operation').implement({
    description: 'One plugin: a conversion family, a tool op or an extraction tool.',
    fields: (t) => ({
      pluginId: t.exposeString('pluginId', { description: 'The plugin id.' }),
      kind: t.exposeString('kind', { description: 'One of convert, tool or extract.' }),
      op: t.exposeString('op', { nullable: true, description: 'The `op` value of a tool.' }),
      title: t.exposeString('title', { description: 'What it does, for people.' }),
      inputs: t.exposeStringList('inputs', { description: 'The input formats it reads.' }),
      outputs: t.exposeStringList('outputs', { description: 'Empty for an in-place op (output = input format).' }),
      plan: t.exposeString('plan', { description: 'Lowest plan allowed.' }),
      available: t.exposeBoolean('available', { description: 'False when an engine it needs is not installed.' }),
      missingEngines: t.exposeStringList('missingEngines', {
        description: 'The engines it needs that are not installed.',
      }),
      licenses: t.exposeStringList('licenses', {
        description: 'SPDX licences of the libraries it links and the engines it runs.',
      }),
      options: t.field({
        type: 'JSON',
        description: 'JSON Schema of `options`.',
        resolve: (operation) => operation.options,
      }),
      optionsType: t.string({
        nullable: true,
        description: 'Name of the GraphQL input type describing `options`; null when the operation takes none.',
        resolve: (operation) => optionTypeNames.get(operation.pluginId) ?? null,
      }),
      optionsField: t.string({
        nullable: true,
        description:
          "The field of `ConvertOptions` (convert, batchConvert) that carries this plugin's options; null for an " +
          'extraction tool or an operation without options.',
        resolve: (operation) => convertFields.get(operation.pluginId) ?? null,
      }),
    }),
  });

  const FormatsRef = builder.objectRef<FormatsListing>('Formats').implement({
    description: 'What this server converts and runs.',
    fields: (t) => ({
      conversions: t.field({
        type: [ConversionRef],
        description: 'Per input format, the formats it converts to.',
        resolve: (formats) => formats.conversions,
      }),
      operations: t.field({
        type: [OperationRef],
        description: 'Every plugin, available or not.',
        resolve: (formats) => formats.operations,
      }),
    }),
  });

  builder.queryField('formats', (t) =>
    t.field({
      type: FormatsRef,
      nullable: true,
      description: 'Conversions and operations of this server (same data as GET /api/v1/formats).',
      resolve: (_root, _args, { services }) => listingOf(services.capabilities.formats()),
    }),
  );
}
