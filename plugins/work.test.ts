/**
 * Bounded work per job: every standard plugin declares what its work grows with (`limits.work`), or
 * is one whose work is bounded by its bytes or is constant; those are named in the API reference's
 * "Bounded work per job" table (docs/API.md) with the reason.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { standardPlugins } from './index.js';

/** Work that grows with bytes (bounded by the plan's file size) or is one render, page or frame. */
const BOUNDED_BY_BYTES_OR_CONSTANT = [
  'file-search',
  'data-convert',
  'document-chunk',
  'document-render',
  'document-structure',
  'repair-csv',
  'subtitle-convert',
  'repair-office',
  'html-to-pdf',
  'image-chunk',
  'image-render',
  'image-structure',
  'md-to-pdf',
  'url-render',
  'thumbnail',
];

const apiReference = readFileSync(path.join(import.meta.dirname, '..', 'docs', 'API.md'), 'utf8');
const boundedWorkSection = apiReference.slice(apiReference.indexOf('## Bounded work per job'));

describe('bounded work per job', () => {
  it('every plugin declares its work measure, or is bounded by bytes or constant', () => {
    const undeclared = standardPlugins.filter((plugin) => !plugin.limits.work).map((plugin) => plugin.id);
    expect(undeclared.sort()).toEqual([...BOUNDED_BY_BYTES_OR_CONSTANT].sort());
  });

  it('the API reference table names each byte-bounded or constant plugin, and each newly measured one', () => {
    expect(boundedWorkSection.length).toBeGreaterThan(100);
    for (const id of [...BOUNDED_BY_BYTES_OR_CONSTANT, 'pdf-to-markdown', 'pdf-to-docx', 'parse-cv', 'transcribe'])
      expect(boundedWorkSection, id).toContain(`\`${id}\``);
  });

  it('a measured plugin has a positive maximum and a deadline that never shrinks as the measure grows', () => {
    const input = { path: 'in', format: 'pdf' as const, filename: 'in', bytes: 1000 };
    for (const plugin of standardPlugins.filter((p) => p.limits.work)) {
      const { work, timeoutMs } = plugin.limits;
      expect(work!.max, plugin.id).toBeGreaterThan(0);
      if (typeof timeoutMs !== 'function') continue;
      expect(timeoutMs([input], work!.max), plugin.id).toBeGreaterThanOrEqual(timeoutMs([input], 1));
    }
  });
});
