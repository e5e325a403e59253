/**
 * The comparison converter ("the anchor"): @opendataloader/pdf, a Java 17 CLI behind an npm wrapper. Every PDF ->
 * Markdown bench (run.ts, real/run.ts, hard/run.ts) converts through here, so the anchor is run the same way
 * everywhere: one JVM a batch, Markdown only, no images, our page-marker comment between pages, and its own
 * defaults otherwise (page heads and feet left out, no OCR).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export interface AnchorInput {
  /** The key of its output in `AnchorBatch.outputs`. */
  id: string;
  /** The PDF's path. */
  file: string;
}

export interface AnchorBatch {
  outputs: Map<string, string>;
  /** Wall clock of the whole batch, JVM start included. */
  seconds: number;
}

const JAVA_CHECK_TIMEOUT_MS = 30_000;

/** Why the anchor cannot run on this machine, or undefined when it can. */
export async function anchorUnavailable(): Promise<string | undefined> {
  try {
    execFileSync('java', ['-version'], { stdio: 'ignore', timeout: JAVA_CHECK_TIMEOUT_MS });
  } catch {
    return 'java is not available, so @opendataloader/pdf cannot run';
  }
  try {
    await import('@opendataloader/pdf');
  } catch (error) {
    return `@opendataloader/pdf is not installed (${(error as Error).message})`;
  }
  return undefined;
}

/**
 * Converts every input in one JVM. Each input is linked under a numbered name (many real PDFs share a base name such
 * as example.pdf). `copies` above 1 links each input that many times into the same batch: the batch's extra time is
 * warm-JVM time. A PDF the anchor writes no Markdown for
 * reads as empty. Rejects when the anchor fails as a whole.
 */
export async function convertWithAnchor(inputs: readonly AnchorInput[], copies = 1): Promise<AnchorBatch> {
  const { convert } = await import('@opendataloader/pdf');
  const dir = mkdtempSync(join(tmpdir(), 'odl-'));
  try {
    const linked = join(dir, 'in');
    mkdirSync(linked);
    const nameOf = (index: number, copy: number) => (copy === 0 ? `f${index}` : `f${index}.copy${copy}`);
    const paths = inputs.flatMap((input, index) =>
      Array.from({ length: copies }, (_, copy) => {
        const link = join(linked, `${nameOf(index, copy)}.pdf`);
        symlinkSync(resolve(input.file), link);
        return link;
      }),
    );
    const started = performance.now();
    await convert(paths, {
      outputDir: join(dir, 'out'),
      format: 'markdown',
      quiet: true,
      imageOutput: 'off',
      markdownPageSeparator: '<!-- page %page-number% -->',
    });
    const seconds = (performance.now() - started) / 1000;
    const read = (index: number, copy: number) => {
      try {
        return readFileSync(join(dir, 'out', `${nameOf(index, copy)}.md`), 'utf8');
      } catch {
        return '';
      }
    };
    return {
      outputs: new Map(inputs.map((input, index) => [input.id, read(index, 0)])),
      seconds,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
