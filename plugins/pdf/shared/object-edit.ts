/**
 * Structural edits of a PDF's objects through qpdf's JSON (version 2): qpdf writes every
 * object's dictionary as JSON (stream data left out), the edit changes dictionaries in memory,
 * and qpdf writes a new file from the original updated with only the changed objects
 * (`--update-from-json`; streams keep their data). qpdf always writes a complete new file and
 * drops objects nothing refers to any more, so removed entries are really gone, not hidden
 * behind an incremental update.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PluginError, type RunContext } from '../../../core/contract/index.js';
import { runQpdf, type QpdfJob } from '../../../core/engines/qpdf.js';

/** PDF values as qpdf JSON writes them: names "/Name", references "12 0 R", strings "u:text". */
export type PdfValue = string | number | boolean | null | PdfValue[] | PdfDictionary;
export interface PdfDictionary {
  [key: string]: PdfValue;
}
type PdfObject = { value: PdfValue } | { stream: { dict: PdfDictionary } };

const REFERENCE = /^\d+ \d+ R$/;

function isDictionary(value: PdfValue | undefined): value is PdfDictionary {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The document's objects, keyed "obj:12 0 R", plus "trailer". */
export class PdfObjects {
  private readonly changed = new Set<string>();

  constructor(private readonly objects: Record<string, PdfObject>) {}

  /** Edit the trailer dictionary (/Root, /Info, /ID); it is rewritten when `edit` returns true. */
  editTrailer(edit: (trailer: PdfDictionary) => boolean): void {
    const trailer = this.objects.trailer;
    if (trailer && 'value' in trailer && isDictionary(trailer.value) && edit(trailer.value))
      this.changed.add('trailer');
  }

  /** The object a reference points to, or the value itself when it is direct. */
  resolve(value: PdfValue | undefined): PdfValue | undefined {
    if (typeof value !== 'string' || !REFERENCE.test(value)) return value;
    const target = this.objects[`obj:${value}`];
    if (!target) return undefined;
    return 'stream' in target ? target.stream.dict : target.value;
  }

  /**
   * Call `edit` on every dictionary of every object (stream dictionaries and dictionaries nested
   * in arrays and other dictionaries included); an object is rewritten when `edit` returns true.
   */
  editDictionaries(edit: (dictionary: PdfDictionary) => boolean): void {
    for (const [key, object] of Object.entries(this.objects)) {
      const root = 'stream' in object ? object.stream.dict : object.value;
      if (visit(root, edit)) this.changed.add(key);
    }
  }

  /** Only the objects that changed, as `--update-from-json` wants them. */
  changes(): Record<string, PdfObject> {
    return Object.fromEntries([...this.changed].map((key) => [key, this.objects[key]!]));
  }
}

function visit(value: PdfValue, edit: (dictionary: PdfDictionary) => boolean): boolean {
  if (Array.isArray(value)) return value.map((item) => visit(item, edit)).some(Boolean);
  if (!isDictionary(value)) return false;
  const changedHere = edit(value);
  const changedBelow = Object.values(value)
    .map((item) => visit(item, edit))
    .some(Boolean);
  return changedHere || changedBelow;
}

/** Remove `keys` from `dictionary`; true when one was there. */
export function deleteKeys(dictionary: PdfDictionary, keys: readonly string[]): boolean {
  let deleted = false;
  for (const key of keys) {
    if (key in dictionary) {
      delete dictionary[key];
      deleted = true;
    }
  }
  return deleted;
}

/**
 * Write `output` from `input` with `edit` applied to its objects. `write` adds qpdf output
 * options (e.g. object streams). The input must open without a password.
 */
export async function rewriteObjects(
  input: string,
  output: string,
  ctx: RunContext,
  edit: (objects: PdfObjects) => void,
  write: QpdfJob = {},
): Promise<void> {
  const dir = path.dirname(output);
  const dumpFile = path.join(dir, 'objects.json');
  await runQpdf(
    { inputFile: input, outputFile: dumpFile, jsonOutput: '2', jsonKey: ['qpdf'], jsonStreamData: 'none' },
    ctx,
  );
  const dump = JSON.parse(await readFile(dumpFile, 'utf8')) as { qpdf?: [unknown, Record<string, PdfObject>] };
  if (!dump.qpdf) throw new PluginError('The PDF could not be read as objects');
  const [header, objects] = dump.qpdf;
  ctx.signal.throwIfAborted();

  const document = new PdfObjects(objects);
  edit(document);
  const updateFile = path.join(dir, 'update.json');
  await writeFile(updateFile, JSON.stringify({ qpdf: [header, document.changes()] }));
  await runQpdf({ inputFile: input, outputFile: output, updateFromJson: updateFile, ...write }, ctx);
}
