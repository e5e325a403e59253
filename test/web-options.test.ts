/**
 * The convert page's option forms (apps/web/src/schema-form.ts) over the JSON Schemas the server
 * publishes, made here exactly as the server makes them from the standard plugins: every form
 * starts from the plugin's defaults and a valid draft gives options its zod schema accepts;
 * wrong values are caught before upload, in words.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { pdfMetadataOption } from '../core/engines/pdf-metadata.js';
import { standardPlugins } from '../plugins/index.js';
import { buildOptions, fieldKind, initialDraft, type JsonSchema } from '../apps/web/src/schema-form.js';

const pluginOf = (id: string) => standardPlugins.find((plugin) => plugin.id === id)!;
const schemaOf = (id: string) => z.toJSONSchema(pluginOf(id).options, { io: 'input' }) as JsonSchema;

describe('option forms from the published JSON Schemas', () => {
  it('renders every standard plugin without falling back to raw JSON, and its defaults pass its own schema', () => {
    for (const plugin of standardPlugins) {
      const schema = schemaOf(plugin.id);
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        expect(fieldKind(property).kind, `${plugin.id}.${name}`).not.toBe('json');
      }
      const built = buildOptions(schema, initialDraft(schema));
      // Required fields without a default (a password, pages) are reported, never guessed.
      for (const path of Object.keys(built.errors))
        expect(built.errors[path], `${plugin.id}: ${path}`).toBe('Required.');
      if (Object.keys(built.errors).length > 0) continue;
      // What JSON Schema cannot say (resize: "at least one of width and height") is a refinement
      // the server checks and explains; everything else the form already got right.
      const parsed = pluginOf(plugin.id).options.safeParse(built.value);
      expect(parsed.error?.issues.filter((issue) => issue.code !== 'custom') ?? [], plugin.id).toEqual([]);
    }
  });

  it('resize: numbers within their bounds, the fit from its enum', () => {
    const schema = schemaOf('image-resize');
    const draft = initialDraft(schema);
    expect(buildOptions(schema, { ...draft, resize: { width: '0', height: '', fit: 'cover' } }).errors).toEqual({
      'resize.width': 'Enter a value from 1 to 10000.',
    });
    expect(buildOptions(schema, { ...draft, resize: { width: '12.5', height: '', fit: 'cover' } }).errors).toEqual({
      'resize.width': 'Enter a whole number.',
    });
    const built = buildOptions(schema, { ...draft, resize: { width: '640', height: '', fit: 'cover' } });
    expect(built).toEqual({ value: { quality: 80, resize: { width: 640, fit: 'cover' } }, errors: {} });
    expect(pluginOf('image-resize').options.safeParse(built.value).success).toBe(true);
  });

  it('split-pdf: a oneOf told apart by its mode', () => {
    const schema = schemaOf('split-pdf');
    const field = fieldKind(schema.properties!.split!);
    expect(field).toMatchObject({ kind: 'variant', discriminator: 'mode' });
    expect(buildOptions(schema, initialDraft(schema)).value).toEqual({ split: { mode: 'pages' } });
    expect(buildOptions(schema, { split: { mode: 'ranges', ranges: '' } }).errors).toEqual({
      'split.ranges': 'Required.',
    });
    const built = buildOptions(schema, { split: { mode: 'ranges', ranges: '1-3,4' } });
    expect(built.value).toEqual({ split: { mode: 'ranges', ranges: '1-3,4' } });
    expect(pluginOf('split-pdf').options.safeParse(built.value).success).toBe(true);
  });

  it('redact: patterns as checkboxes, terms one per line', () => {
    const schema = schemaOf('pdf-redact');
    expect(fieldKind(schema.properties!.redact!.properties!.patterns!)).toMatchObject({ kind: 'checkboxes' });
    expect(fieldKind(schema.properties!.redact!.properties!.terms!)).toEqual({ kind: 'lines' });
    const built = buildOptions(schema, { redact: { patterns: ['email'], terms: ['Project Falcon', '  ', 'ACME'] } });
    expect(built.value).toEqual({ redact: { patterns: ['email'], terms: ['Project Falcon', 'ACME'] } });
    expect(pluginOf('pdf-redact').options.safeParse(built.value).success).toBe(true);
  });

  it('url-render: status codes one per line, whole numbers from 100 to 599; metadata keywords one per line', () => {
    const schema = schemaOf('url-render');
    const draft = initialDraft(schema);
    expect(draft.failOnHttpStatusCodes).toEqual(['499', '599']);
    expect(buildOptions(schema, { ...draft, failOnHttpStatusCodes: ['404', ' 599 ', ''] }).value).toMatchObject({
      failOnHttpStatusCodes: [404, 599],
    });
    // (The margin's and viewport's sides have no default of their own: the form reports them Required.)
    expect(buildOptions(schema, { ...draft, failOnHttpStatusCodes: ['404', '4x4'] }).errors).toMatchObject({
      failOnHttpStatusCodes: 'Each line must be a whole number from 100 to 599.',
    });
    expect(buildOptions(schema, { ...draft, failOnHttpStatusCodes: ['700'] }).errors).toMatchObject({
      failOnHttpStatusCodes: 'Each line must be a whole number from 100 to 599.',
    });
    const withMetadata = buildOptions(schema, {
      ...draft,
      metadata: { title: 'Harbour', author: '', subject: '', keywords: ['ferries', 'timetable'] },
    });
    expect(withMetadata.errors).not.toHaveProperty('metadata.keywords');
    expect(Object.values(withMetadata.errors).every((message) => message === 'Required.')).toBe(true);
    expect(withMetadata.value.metadata).toEqual({ title: 'Harbour', keywords: ['ferries', 'timetable'] });
    expect(pdfMetadataOption.safeParse(withMetadata.value.metadata).success).toBe(true);
  });

  it('passwords are masked fields with their length checked', () => {
    const schema = schemaOf('protect-pdf');
    expect(fieldKind(schema.properties!.password!)).toEqual({ kind: 'text', secret: true });
    expect(buildOptions(schema, { password: 'x'.repeat(129) }).errors).toEqual({
      password: 'Enter at most 128 characters.',
    });
  });
});
