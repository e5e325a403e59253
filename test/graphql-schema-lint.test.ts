/**
 * The committed GraphQL schema (schema/schema.graphql, checked fresh by
 * apps/server/graphql/schema.test.ts) passes a third-party linter, graphql-schema-linter, offline,
 * with its description and naming rules: 0 errors.
 *
 * Not enforced: `enum-values-all-caps`. Enum values are the wire values REST sends and takes
 * (`queued`, `inside`, `A4`...), so GraphQL clients and REST clients share them.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers.js';

const run = promisify(execFile);

const RULES = [
  'types-have-descriptions',
  'fields-have-descriptions',
  'arguments-have-descriptions',
  'enum-values-have-descriptions',
  'input-object-values-have-descriptions',
  'descriptions-are-capitalized',
  'types-are-capitalized',
  'fields-are-camel-cased',
  'input-object-values-are-camel-cased',
];

async function lint(file: string): Promise<string[]> {
  const result = await run(
    path.join(ROOT, 'node_modules/.bin/graphql-schema-linter'),
    ['--format', 'json', '--rules', RULES.join(','), file],
    {
      cwd: path.dirname(file),
      maxBuffer: 16 * 1024 * 1024,
    },
  ).catch((error: { stdout: string }) => error);
  const report = JSON.parse(result.stdout) as { errors: Array<{ message: string; rule: string }> };
  return report.errors.map((error) => `${error.rule}: ${error.message}`);
}

describe('GraphQL schema lint', () => {
  it('schema/schema.graphql: a description on every type, field, argument and enum value; camelCase ' +
    'fields', async () => {
    expect(await lint(path.join(ROOT, 'schema/schema.graphql'))).toEqual([]);
  }, 60_000);

  it('the gate bites: a schema without descriptions fails it', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'graphql-lint-'));
    try {
      const file = path.join(dir, 'bad.graphql');
      await writeFile(file, '"""Reads."""\ntype Query {\n  """A job."""\n  job_status(id: ID!): String\n}\n');
      const errors = await lint(file);
      expect(errors).toContainEqual(expect.stringMatching(/^arguments-have-descriptions: /));
      expect(errors).toContainEqual(expect.stringMatching(/^fields-are-camel-cased: /));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
