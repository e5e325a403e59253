/**
 * Formats: what this server converts and which ops it runs (services.capabilities, as REST and
 * tRPC; the root field is the operation table's getFormats), made from the listing's zod
 * (schema/wire.ts formatsSchema). GraphQL lists the conversions as `{from, to}` objects where REST
 * has one object keyed by input format (GraphQL has no map type).
 */
import { z } from 'zod';
import { formatsSchema, operationInfoSchema } from '../../../schema/index.js';
import type { OperationInfo } from '../../../core/registry/index.js';
import type { Formats } from '../../../core/services/capabilities.js';
import type { Builder } from './builder.js';
import type { OptionInputs } from './option-inputs.js';
import { addZodObject } from './zod-objects.js';

/** One entry of REST's `conversions` object: an input format and the `to` values it converts to. */
const conversionSchema = z.object({
  from: z.string().describe('The input format (lower-case extension).'),
  to: formatsSchema.shape.conversions.valueType.describe('The formats it converts to.'),
});

/** The listing in GraphQL's shape: the conversions as a list. */
const formatsListingSchema = formatsSchema.extend({
  conversions: z.array(conversionSchema).describe('Per input format, the formats it converts to.'),
});
type FormatsListing = z.output<typeof formatsListingSchema>;

/** The listing in GraphQL's shape, built again only when the service's cached value changed. */
function formatsListing(): (formats: Formats) => FormatsListing {
  let source: Formats | undefined;
  let listing: FormatsListing | undefined;
  return (formats) => {
    if (formats !== source || !listing) {
      source = formats;
      listing = {
        conversions: Object.entries(formats.conversions).map(([from, to]) => ({ from, to })),
        operations: formats.operations as FormatsListing['operations'],
      };
    }
    return listing;
  };
}

export function addFormats(builder: Builder, { names: optionTypeNames, convertFields }: OptionInputs) {
  const listingOf = formatsListing();
  addZodObject(builder, 'Conversion', conversionSchema, {
    description: 'The `to` values one input format converts to.',
  });

  addZodObject<z.ZodRawShape, OperationInfo>(builder, 'Operation', operationInfoSchema, {
    description: 'One plugin: a conversion family, a tool op or an extraction tool.',
    // Strings, as since the first schema: an enum now would change the types clients generated.
    types: { kind: 'String', plan: 'String', options: 'JSON' },
    descriptions: { options: 'JSON Schema of `options`.' },
    extra: (t) => ({
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

  // The operation table's `formats` field (getFormats) answers REST's listing; its fields read GraphQL's shape of it.
  addZodObject<z.ZodRawShape, Formats>(builder, 'Formats', formatsListingSchema, {
    description: 'What this server converts and runs.',
    types: { conversions: 'Conversion', operations: 'Operation' },
    from: listingOf,
  });
}
