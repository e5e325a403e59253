/**
 * remove-watermark on pdf-lib: finds the watermarks a PDF declares as such and removes them.
 *
 * What counts as a watermark element (each one counts 1 in `toolReport.detected`):
 * - an annotation of subtype /Watermark; a /Stamp annotation marked as a watermark (its /Name,
 *   /NM, /Subj or /T says "watermark"); any annotation in a watermark layer (/OC);
 * - a marked-content section `/Artifact <</Subtype /Watermark ...>> BDC ... EMC` (or whose
 *   property list in /Resources /Properties says /Subtype /Watermark), in page contents and in
 *   form XObjects;
 * - a marked-content section in a watermark layer: `/OC /MCx BDC ... EMC` where /MCx is an
 *   optional-content group named "watermark" (any case, within the name) or whose /Intent is
 *   /Watermark (or a membership dictionary whose groups are all watermarks);
 * - a `Do` drawing an XObject that carries those marks: /OC pointing to a watermark layer, or
 *   Acrobat's `/PieceInfo << /ADBE_CompoundType << /Private /Watermark >> >>`.
 * Watermark layers are removed from /OCProperties too, and the resource entries only removed
 * content used (a form drawn inside a removed section, as Acrobat draws its watermarks). Links, form fields and other
 * annotations, and all other content, stay byte for byte (a content stream is only rewritten when something
 * was cut from it). pdf-lib keeps objects nothing refers to any more, so the result is written
 * once more by qpdf, which keeps only what is reachable: the removed content is gone from the
 * file's bytes. Nothing found: detected 0 and the input is returned unchanged.
 * PDFs with owner-only restrictions are decrypted by qpdf first (pdf-lib cannot read encrypted
 * files), so the result carries no restrictions.
 */
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import {
  PDFArray,
  PDFDict,
  PDFDocument,
  PDFHexString,
  PDFName,
  PDFRawStream,
  PDFRef,
  PDFStream,
  PDFString,
  decodePDFRawStream,
  type PDFObject,
} from 'pdf-lib';
import { PluginError, type FileResult, type PluginInput, type RunContext } from '../../../core/contract/index.js';
import { isEncrypted, runQpdf } from '../../../core/engines/qpdf.js';
import { cutRanges, joinLines, parseContent, type ContentDict, type ContentValue } from '../shared/content-stream.js';
import { transformPdf } from '../shared/transform.js';

const N = (name: string) => PDFName.of(name);
const WATERMARK_WORD = /watermark/i;

function text(object: PDFObject | undefined): string | undefined {
  if (object instanceof PDFString || object instanceof PDFHexString) return object.decodeText();
  if (object instanceof PDFName) return object.decodeText();
  return undefined;
}

function namesIn(object: PDFObject | undefined, doc: PDFDocument): string[] {
  const value = object instanceof PDFRef ? doc.context.lookup(object) : object;
  if (value instanceof PDFName) return [value.decodeText()];
  if (value instanceof PDFArray) return value.asArray().flatMap((item) => namesIn(item, doc));
  return [];
}

class WatermarkRemover {
  detected = 0;
  /** Watermark optional-content groups (OCG dictionaries). */
  private readonly layerRefs = new Set<string>();
  private readonly layerDicts = new Set<PDFDict>();
  /** Form XObjects already cleaned (shared between pages), by reference. */
  private readonly cleanedForms = new Set<string>();
  /**
   * Resource entries (XObjects, property lists) the removed content used: dropped at the end unless kept content uses
   * them too.
   */
  private readonly unusedResources = new Map<PDFDict, Set<string>>();
  /** XObjects drawn by content that stays, per resource dictionary. */
  private readonly keptDraws = new Map<PDFDict, Set<string>>();

  private dropLater(dict: PDFDict | undefined, name: string): void {
    if (dict) mark(this.unusedResources, dict, name);
  }

  /** Drop the resource entries of what was removed, so nothing refers to it any more. */
  dropUnusedResources(): void {
    for (const [dict, names] of this.unusedResources) {
      for (const name of names) if (!this.keptDraws.get(dict)?.has(name)) dict.delete(N(name));
    }
  }

  constructor(private readonly doc: PDFDocument) {
    const properties = doc.catalog.lookupMaybe(N('OCProperties'), PDFDict);
    const groups = properties?.lookupMaybe(N('OCGs'), PDFArray);
    for (const item of groups?.asArray() ?? []) {
      const group = doc.context.lookup(item);
      if (group instanceof PDFDict && this.isWatermarkGroup(group)) {
        if (item instanceof PDFRef) this.layerRefs.add(item.toString());
        this.layerDicts.add(group);
      }
    }
  }

  private isWatermarkGroup(group: PDFDict): boolean {
    if (WATERMARK_WORD.test(text(group.lookup(N('Name'))) ?? '')) return true;
    if (namesIn(group.get(N('Intent')), this.doc).some((name) => /^watermark$/i.test(name))) return true;
    const element = group.lookupMaybe(N('Usage'), PDFDict)?.lookupMaybe(N('PageElement'), PDFDict);
    return /^(WM|Watermark)$/i.test(text(element?.lookup(N('Subtype'))) ?? '');
  }

  /** Whether an /OC value (a group or a membership dictionary) is a watermark layer. */
  private isWatermarkLayer(value: PDFObject | undefined): boolean {
    if (value === undefined) return false;
    if (value instanceof PDFRef && this.layerRefs.has(value.toString())) return true;
    const dict = value instanceof PDFRef ? this.doc.context.lookup(value) : value;
    if (!(dict instanceof PDFDict)) return false;
    if (this.layerDicts.has(dict)) return true;
    if (text(dict.lookup(N('Type'))) === 'OCMD') {
      const groups = dict.get(N('OCGs'));
      const list = groups instanceof PDFArray ? groups.asArray() : groups ? [groups] : [];
      const resolved = groups instanceof PDFRef ? this.doc.context.lookup(groups) : undefined;
      const members = resolved instanceof PDFArray ? resolved.asArray() : list;
      return members.length > 0 && members.every((member) => this.isWatermarkLayer(member));
    }
    return false;
  }

  private isWatermarkXObject(dict: PDFDict): boolean {
    if (this.isWatermarkLayer(dict.get(N('OC')))) return true;
    const compound = dict.lookupMaybe(N('PieceInfo'), PDFDict)?.lookupMaybe(N('ADBE_CompoundType'), PDFDict);
    return WATERMARK_WORD.test(text(compound?.lookup(N('Private'))) ?? '');
  }

  /** Whether a BDC's properties (inline dictionary or a name in /Resources /Properties) mark a watermark. */
  private isWatermarkSection(
    tag: ContentValue | undefined,
    properties: ContentValue | undefined,
    resources: PDFDict | undefined,
  ): boolean {
    if (properties && typeof properties === 'object' && !Array.isArray(properties) && !('string' in properties)) {
      const dict = properties as ContentDict;
      return tag === '/Artifact' && dict['/Subtype'] === '/Watermark';
    }
    if (typeof properties !== 'string' || !properties.startsWith('/')) return false;
    const listed = resources?.lookupMaybe(N('Properties'), PDFDict)?.get(N(properties.slice(1)));
    if (listed === undefined) return false;
    if (tag === '/OC') return this.isWatermarkLayer(listed);
    const dict = this.doc.context.lookup(listed);
    return tag === '/Artifact' && dict instanceof PDFDict && text(dict.lookup(N('Subtype'))) === 'Watermark';
  }

  /**
   * The content without its watermark sections and watermark XObject draws, or undefined when
   * nothing was found. Form XObjects it draws are cleaned too.
   */
  private cleanContent(bytes: Uint8Array, resources: PDFDict | undefined): Uint8Array | undefined {
    const operations = parseContent(bytes);
    const cuts: Array<{ start: number; end: number }> = [];
    // Open marked-content sections: the start of a watermark section, or undefined.
    const open: Array<number | undefined> = [];
    const xobjects = resources?.lookupMaybe(N('XObject'), PDFDict);
    for (const op of operations) {
      const inside = open.some((start) => start !== undefined);
      if (op.operator === 'BMC') open.push(undefined);
      else if (op.operator === 'BDC') {
        const watermark = !inside && this.isWatermarkSection(op.operands[0], op.operands[1], resources);
        const properties = op.operands[1];
        if (watermark && typeof properties === 'string')
          this.dropLater(resources?.lookupMaybe(N('Properties'), PDFDict), properties.slice(1));
        open.push(watermark ? op.start : undefined);
      } else if (op.operator === 'EMC') {
        const start = open.pop();
        if (start !== undefined) {
          cuts.push({ start, end: op.end });
          this.detected++;
        }
      } else if (op.operator === 'Do') {
        const name = op.operands[0];
        if (typeof name !== 'string' || !xobjects) continue;
        const key = name.slice(1);
        // Drawn inside a removed section (Acrobat's watermarks are a form drawn there): its entry
        // goes too, unless content that stays draws it as well.
        if (inside) {
          this.dropLater(xobjects, key);
          continue;
        }
        const ref = xobjects.get(N(key));
        const xobject = ref === undefined ? undefined : this.doc.context.lookup(ref);
        if (!(xobject instanceof PDFStream)) continue;
        if (this.isWatermarkXObject(xobject.dict)) {
          cuts.push({ start: op.start, end: op.end });
          this.dropLater(xobjects, key);
          this.detected++;
        } else {
          mark(this.keptDraws, xobjects, key);
          if (ref instanceof PDFRef && text(xobject.dict.lookup(N('Subtype'))) === 'Form')
            this.cleanForm(ref, xobject, resources);
        }
      }
    }
    // A section left open at the end of the stream runs to its end.
    for (const start of open) {
      if (start !== undefined) {
        cuts.push({ start, end: bytes.length });
        this.detected++;
        break;
      }
    }
    return cuts.length ? cutRanges(bytes, cuts) : undefined;
  }

  private cleanForm(ref: PDFRef, form: PDFStream, inherited: PDFDict | undefined): void {
    const key = ref.toString();
    if (this.cleanedForms.has(key)) return;
    this.cleanedForms.add(key);
    const bytes = decode(form);
    if (!bytes) return;
    const cleaned = this.cleanContent(bytes, form.dict.lookupMaybe(N('Resources'), PDFDict) ?? inherited);
    if (!cleaned) return;
    const dict = form.dict.clone(this.doc.context);
    for (const entry of ['Filter', 'DecodeParms', 'Length']) dict.delete(N(entry));
    dict.set(N('Filter'), N('FlateDecode'));
    this.doc.context.assign(ref, PDFRawStream.of(dict, deflateSync(cleaned)));
  }

  private isWatermarkAnnotation(annotation: PDFDict): boolean {
    const subtype = text(annotation.lookup(N('Subtype')));
    if (subtype === 'Link' || subtype === 'Widget') return false;
    if (subtype === 'Watermark') return true;
    if (this.isWatermarkLayer(annotation.get(N('OC')))) return true;
    if (subtype !== 'Stamp') return false;
    return ['Name', 'NM', 'Subj', 'T'].some((key) => WATERMARK_WORD.test(text(annotation.lookup(N(key))) ?? ''));
  }

  cleanPage(index: number): void {
    const page = this.doc.getPage(index);
    const node = page.node;
    // Annotations.
    const annots = node.lookupMaybe(N('Annots'), PDFArray);
    if (annots) {
      const kept = annots.asArray().filter((item) => {
        const annotation = this.doc.context.lookup(item);
        const remove = annotation instanceof PDFDict && this.isWatermarkAnnotation(annotation);
        if (remove) this.detected++;
        return !remove;
      });
      if (kept.length !== annots.size()) {
        if (kept.length) node.set(N('Annots'), this.doc.context.obj(kept));
        else node.delete(N('Annots'));
      }
    }
    // Content: the page's streams joined (a section may open in one stream and close in the next).
    const contents = node.get(N('Contents'));
    const resolved = contents === undefined ? undefined : this.doc.context.lookup(contents);
    const streams =
      resolved instanceof PDFArray ? resolved.asArray().map((item) => this.doc.context.lookup(item)) : [resolved];
    const parts = streams.map((stream) => (stream instanceof PDFStream ? decode(stream) : undefined));
    if (!parts.length || parts.some((part) => part === undefined)) return;
    const joined = joinLines(parts as Uint8Array[]);
    const cleaned = this.cleanContent(joined, node.Resources());
    if (cleaned) node.set(N('Contents'), this.doc.context.register(this.doc.context.flateStream(cleaned)));
  }

  /** Watermark layers out of /OCProperties (every list naming them); the whole entry when none is left. */
  cleanLayers(): void {
    if (!this.layerDicts.size) return;
    const properties = this.doc.catalog.lookupMaybe(N('OCProperties'), PDFDict);
    if (!properties) return;
    const isLayer = (item: PDFObject) =>
      (item instanceof PDFRef && this.layerRefs.has(item.toString())) ||
      (item instanceof PDFDict && this.layerDicts.has(item));
    const prune = (value: PDFObject | undefined): void => {
      const target = value instanceof PDFRef ? this.doc.context.lookup(value) : value;
      if (target instanceof PDFArray) {
        for (let i = target.size() - 1; i >= 0; i--) {
          const item = target.get(i);
          if (isLayer(item)) target.remove(i);
          else prune(item);
        }
      } else if (target instanceof PDFDict) {
        for (const [key, item] of target.entries()) if (key.decodeText() !== 'Intent') prune(item);
      }
    };
    prune(properties);
    const groups = properties.lookupMaybe(N('OCGs'), PDFArray);
    if (!groups || groups.size() === 0) this.doc.catalog.delete(N('OCProperties'));
  }
}

function mark(map: Map<PDFDict, Set<string>>, dict: PDFDict, name: string): void {
  const names = map.get(dict) ?? new Set<string>();
  names.add(name);
  map.set(dict, names);
}

/** A stream's decoded bytes, or undefined when its filter is not one pdf-lib decodes. */
function decode(stream: PDFStream): Uint8Array | undefined {
  try {
    return stream instanceof PDFRawStream ? decodePDFRawStream(stream).decode() : stream.getContents();
  } catch {
    return undefined;
  }
}

async function removeWatermarks(inputPath: string, output: string, ctx: RunContext): Promise<number> {
  let source = inputPath;
  if (await isEncrypted(inputPath, ctx)) {
    // Owner-only restrictions (a PDF needing a password was refused by openPdf already).
    source = path.join(path.dirname(output), 'decrypted.pdf');
    await runQpdf({ inputFile: inputPath, outputFile: source, decrypt: '' }, ctx);
  }
  let doc: PDFDocument;
  try {
    doc = await PDFDocument.load(await readFile(source), { updateMetadata: false });
  } catch (err) {
    throw new PluginError('The PDF could not be read for watermark removal; try op repair-pdf first', { cause: err });
  }
  ctx.signal.throwIfAborted();
  const remover = new WatermarkRemover(doc);
  const pages = doc.getPageCount();
  for (let i = 0; i < pages; i++) {
    ctx.signal.throwIfAborted();
    remover.cleanPage(i);
    ctx.progress(10 + Math.round((70 * (i + 1)) / pages));
  }
  remover.cleanLayers();
  remover.dropUnusedResources();
  if (remover.detected === 0) {
    await copyFile(inputPath, output);
    return 0;
  }
  const edited = path.join(path.dirname(output), 'edited.pdf');
  await writeFile(edited, await doc.save({ useObjectStreams: false, updateFieldAppearances: false }));
  ctx.signal.throwIfAborted();
  // qpdf writes only the objects reachable from the trailer: what was cut is gone from the bytes.
  await runQpdf(
    { inputFile: edited, outputFile: output, objectStreams: 'generate' },
    ctx,
    'The PDF could not be written',
  );
  return remover.detected;
}

export async function removeWatermark(inputs: readonly PluginInput[], ctx: RunContext): Promise<FileResult> {
  let detected = 0;
  const result = await transformPdf(inputs, ctx, async ({ input, output }) => {
    detected = await removeWatermarks(input.path, output, ctx);
  });
  ctx.signal.throwIfAborted();
  ctx.report({ detected });
  return result;
}
