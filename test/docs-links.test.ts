/**
 * Every relative link in the README and docs/ points at a file of this repository, so a reader never
 * follows a link into nothing (or into a folder only the maintainers have).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.join(import.meta.dirname, '..');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(full);
    return entry.name.endsWith('.md') ? [full] : [];
  });
}

/** Targets of inline links `[text](target)`, without their `#fragment`; external and in-page ones left out. */
function relativeTargets(markdown: string): string[] {
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...withoutCode.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((match) => (match[1] ?? '').split('#')[0] ?? '')
    .filter((target) => target !== '' && !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe('documentation links', () => {
  const files = [path.join(root, 'README.md'), ...markdownFiles(path.join(root, 'docs'))];

  it.each(files.map((file) => [path.relative(root, file), file]))('%s links only to files that exist', (_, file) => {
    const broken = relativeTargets(readFileSync(file, 'utf8')).filter(
      (target) => !existsSync(path.resolve(path.dirname(file), decodeURI(target))),
    );
    expect(broken).toEqual([]);
  });

  it('the README stays a guide a user reads in minutes', () => {
    expect(readFileSync(path.join(root, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(300);
  });
});
