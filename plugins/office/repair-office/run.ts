import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { zipSync } from 'fflate';
import {
  PluginError,
  singleInput,
  type FileResult,
  type PluginInput,
  type RunContext,
} from '../../../core/contract/index.js';
import { libreOfficeConvert } from '../../../core/engines/libreoffice.js';
import type { FormatId } from '../../../schema/index.js';
import { checkXml, salvageParts, type SalvagedPart } from './package.js';

type Kind = 'docx' | 'xlsx' | 'pptx';

const NS = {
  officeDocument: 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument',
  core: 'http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties',
  extended: 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/extended-properties',
  rel: 'http://schemas.openxmlformats.org/officeDocument/2006/relationships',
};

interface KindInfo {
  main: string;
  filter: string;
  convertTo: string;
  label: string;
  /** Content types of known parts, by a pattern of their name. */
  types: Array<[RegExp, string]>;
  /** Relationship type (last segment) of parts the main part refers to, by pattern. */
  related: Array<[RegExp, string]>;
}

const OOXML = 'application/vnd.openxmlformats-officedocument';
const COMMON_TYPES: Array<[RegExp, string]> = [
  [/^docProps\/core\.xml$/, 'application/vnd.openxmlformats-package.core-properties+xml'],
  [/^docProps\/app\.xml$/, `${OOXML}.extended-properties+xml`],
  [/^docProps\/custom\.xml$/, `${OOXML}.custom-properties+xml`],
  [/\/theme\/theme\d+\.xml$/, `${OOXML}.theme+xml`],
];

const KINDS: Record<Kind, KindInfo> = {
  docx: {
    main: 'word/document.xml',
    filter: 'MS Word 2007 XML',
    convertTo: 'docx:MS Word 2007 XML',
    label: 'DOCX',
    types: [
      [/^word\/document\.xml$/, `${OOXML}.wordprocessingml.document.main+xml`],
      [/^word\/styles\.xml$/, `${OOXML}.wordprocessingml.styles+xml`],
      [/^word\/settings\.xml$/, `${OOXML}.wordprocessingml.settings+xml`],
      [/^word\/webSettings\.xml$/, `${OOXML}.wordprocessingml.webSettings+xml`],
      [/^word\/fontTable\.xml$/, `${OOXML}.wordprocessingml.fontTable+xml`],
      [/^word\/numbering\.xml$/, `${OOXML}.wordprocessingml.numbering+xml`],
      [/^word\/footnotes\.xml$/, `${OOXML}.wordprocessingml.footnotes+xml`],
      [/^word\/endnotes\.xml$/, `${OOXML}.wordprocessingml.endnotes+xml`],
      [/^word\/comments\.xml$/, `${OOXML}.wordprocessingml.comments+xml`],
      [/^word\/header\d+\.xml$/, `${OOXML}.wordprocessingml.header+xml`],
      [/^word\/footer\d+\.xml$/, `${OOXML}.wordprocessingml.footer+xml`],
    ],
    related: [
      [/^word\/styles\.xml$/, 'styles'],
      [/^word\/settings\.xml$/, 'settings'],
      [/^word\/webSettings\.xml$/, 'webSettings'],
      [/^word\/fontTable\.xml$/, 'fontTable'],
      [/^word\/numbering\.xml$/, 'numbering'],
      [/^word\/footnotes\.xml$/, 'footnotes'],
      [/^word\/endnotes\.xml$/, 'endnotes'],
      [/^word\/theme\/theme\d+\.xml$/, 'theme'],
    ],
  },
  xlsx: {
    main: 'xl/workbook.xml',
    filter: 'Calc MS Excel 2007 XML',
    convertTo: 'xlsx:Calc MS Excel 2007 XML',
    label: 'XLSX',
    types: [
      [/^xl\/workbook\.xml$/, `${OOXML}.spreadsheetml.sheet.main+xml`],
      [/^xl\/worksheets\/sheet\d+\.xml$/, `${OOXML}.spreadsheetml.worksheet+xml`],
      [/^xl\/sharedStrings\.xml$/, `${OOXML}.spreadsheetml.sharedStrings+xml`],
      [/^xl\/styles\.xml$/, `${OOXML}.spreadsheetml.styles+xml`],
      [/^xl\/calcChain\.xml$/, `${OOXML}.spreadsheetml.calcChain+xml`],
      [/^xl\/drawings\/drawing\d+\.xml$/, `${OOXML}.drawing+xml`],
    ],
    related: [
      [/^xl\/worksheets\/sheet\d+\.xml$/, 'worksheet'],
      [/^xl\/sharedStrings\.xml$/, 'sharedStrings'],
      [/^xl\/styles\.xml$/, 'styles'],
      [/^xl\/theme\/theme\d+\.xml$/, 'theme'],
    ],
  },
  pptx: {
    main: 'ppt/presentation.xml',
    filter: 'Impress MS PowerPoint 2007 XML',
    convertTo: 'pptx:Impress MS PowerPoint 2007 XML',
    label: 'PPTX',
    types: [
      [/^ppt\/presentation\.xml$/, `${OOXML}.presentationml.presentation.main+xml`],
      [/^ppt\/slides\/slide\d+\.xml$/, `${OOXML}.presentationml.slide+xml`],
      [/^ppt\/slideLayouts\/slideLayout\d+\.xml$/, `${OOXML}.presentationml.slideLayout+xml`],
      [/^ppt\/slideMasters\/slideMaster\d+\.xml$/, `${OOXML}.presentationml.slideMaster+xml`],
      [/^ppt\/notesSlides\/notesSlide\d+\.xml$/, `${OOXML}.presentationml.notesSlide+xml`],
      [/^ppt\/notesMasters\/notesMaster\d+\.xml$/, `${OOXML}.presentationml.notesMaster+xml`],
      [/^ppt\/handoutMasters\/handoutMaster\d+\.xml$/, `${OOXML}.presentationml.handoutMaster+xml`],
      [/^ppt\/presProps\.xml$/, `${OOXML}.presentationml.presProps+xml`],
      [/^ppt\/viewProps\.xml$/, `${OOXML}.presentationml.viewProps+xml`],
      [/^ppt\/tableStyles\.xml$/, `${OOXML}.presentationml.tableStyles+xml`],
    ],
    related: [
      [/^ppt\/slideMasters\/slideMaster\d+\.xml$/, 'slideMaster'],
      [/^ppt\/slides\/slide\d+\.xml$/, 'slide'],
      [/^ppt\/presProps\.xml$/, 'presProps'],
      [/^ppt\/viewProps\.xml$/, 'viewProps'],
      [/^ppt\/tableStyles\.xml$/, 'tableStyles'],
      [/^ppt\/theme\/theme\d+\.xml$/, 'theme'],
    ],
  },
};

const DEFAULT_TYPES: Record<string, string> = {
  rels: 'application/vnd.openxmlformats-package.relationships+xml',
  xml: 'application/xml',
  png: 'image/png',
  jpeg: 'image/jpeg',
  jpg: 'image/jpeg',
  gif: 'image/gif',
  bmp: 'image/bmp',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  emf: 'image/x-emf',
  wmf: 'image/x-wmf',
  svg: 'image/svg+xml',
  bin: 'application/vnd.openxmlformats-officedocument.oleObject',
};

const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

export interface RepairReport {
  recovered: number;
  dropped: string[];
  completed: string[];
  relationshipsRemoved: number;
}

interface Relationship {
  id: string;
  type: string;
  target: string;
  external: boolean;
}

const attr = (tag: string, name: string) =>
  new RegExp(`\\s${name}\\s*=\\s*("([^"]*)"|'([^']*)')`)
    .exec(tag)
    ?.slice(2)
    .find((v) => v !== undefined);
const decodeAttr = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

function parseRelationships(xml: string): Relationship[] {
  return [...xml.matchAll(/<(?:\w+:)?Relationship\s[^>]*>/g)].flatMap(([tag]) => {
    const id = attr(tag, 'Id');
    const type = attr(tag, 'Type');
    const target = attr(tag, 'Target');
    if (!id || !type || target === undefined) return [];
    return [
      {
        id: decodeAttr(id),
        type: decodeAttr(type),
        target: decodeAttr(target),
        external: attr(tag, 'TargetMode') === 'External',
      },
    ];
  });
}

function relationshipsXml(relationships: readonly Relationship[]): string {
  const items = relationships.map(
    (r) =>
      `<Relationship Id="${escapeAttr(r.id)}" Type="${escapeAttr(r.type)}" ` +
      `Target="${escapeAttr(r.target)}"${r.external ? ' TargetMode="External"' : ''}/>`,
  );
  return (
    `${XML_HEAD}<Relationships ` +
    `xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${items.join('')}</Relationships>`
  );
}

/** The rels part of `part` ("word/document.xml" -> "word/_rels/document.xml.rels"; "" -> "_rels/.rels"). */
const relsOf = (part: string) =>
  part
    ? `${path.posix.dirname(part) === '.' ? '' : `${path.posix.dirname(part)}/`}_rels/${path.posix.basename(part)}.rels`
    : '_rels/.rels';
/** The part a rels part describes ("" for the package). */
function sourceOf(rels: string): string {
  const match = /^(?:(.*)\/)?_rels\/(.*)\.rels$/.exec(rels);
  if (!match) return '';
  return match[1] ? `${match[1]}/${match[2]}` : match[2]!;
}
function resolveTarget(source: string, target: string): string {
  if (target.startsWith('/')) return target.slice(1);
  const base = source ? path.posix.dirname(source) : '';
  return path.posix.normalize(path.posix.join(base, target)).replace(/^\.\//, '');
}

/** A consistent package from what was salvaged; throws when its main part is missing. */
export function rebuildPackage(
  kind: Kind,
  salvaged: readonly SalvagedPart[],
): { files: Map<string, Uint8Array>; report: RepairReport } {
  const info = KINDS[kind];
  const report: RepairReport = { recovered: salvaged.length, dropped: [], completed: [], relationshipsRemoved: 0 };
  const parts = new Map<string, Buffer>();
  let contentTypes: string | undefined;
  for (const part of salvaged) {
    const isXml = /\.(xml|rels)$/i.test(part.name);
    if (!isXml) {
      // Binary parts (images...) cut short cannot be trusted.
      if (part.partial) report.dropped.push(part.name);
      else parts.set(part.name, part.data);
      continue;
    }
    const text = part.data.toString('utf8');
    const verdict = checkXml(text);
    let xml: string | undefined = verdict.ok ? text : verdict.completed;
    if (!verdict.ok && xml !== undefined && !checkXml(xml).ok) xml = undefined;
    if (xml === undefined) {
      report.dropped.push(part.name);
      continue;
    }
    if (!verdict.ok) report.completed.push(part.name);
    if (part.name === '[Content_Types].xml') contentTypes = xml;
    else parts.set(part.name, Buffer.from(xml, 'utf8'));
  }
  // The main part is where the package relationships say it is (any name), else the usual name.
  const declared = parseRelationships(parts.get('_rels/.rels')?.toString('utf8') ?? '').find(
    (r) => r.type === NS.officeDocument && !r.external,
  );
  const declaredMain = declared && resolveTarget('', declared.target);
  const main = declaredMain && parts.has(declaredMain) ? declaredMain : info.main;
  if (kind === 'xlsx' && !parts.has(main) && synthesiseWorkbook(parts)) report.completed.push(main);
  if (!parts.has(main))
    throw new PluginError(`The ${info.label} could not be repaired: its main part (${main}) is missing or unreadable`);

  // Relationships: targets that exist, or recreated when the rels part itself was lost.
  const relsParts = new Map<string, Relationship[]>();
  for (const [name, data] of parts)
    if (name.endsWith('.rels')) relsParts.set(name, parseRelationships(data.toString('utf8')));
  const packageRels = relsParts.get('_rels/.rels') ?? [];
  if (!packageRels.some((r) => r.type === NS.officeDocument && resolveTarget('', r.target) === main)) {
    packageRels.splice(0, packageRels.length, ...packageRels.filter((r) => r.type !== NS.officeDocument), {
      id: 'rIdMain',
      type: NS.officeDocument,
      target: main,
      external: false,
    });
  }
  const ensure = (rels: Relationship[], type: string, target: string, source: string) => {
    if (parts.has(target) && !rels.some((r) => resolveTarget(source, r.target) === target))
      rels.push({
        id: `rIdRepair${rels.length + 1}`,
        type,
        target: path.posix.relative(source ? path.posix.dirname(source) : '', target),
        external: false,
      });
  };
  ensure(packageRels, NS.core, 'docProps/core.xml', '');
  ensure(packageRels, NS.extended, 'docProps/app.xml', '');
  relsParts.set('_rels/.rels', packageRels);
  const mainRelsName = relsOf(main);
  if (!relsParts.has(mainRelsName)) {
    const rels: Relationship[] = [];
    // Sheets and slides are listed in the main part by relationship id, in order: the n-th id
    // goes to the n-th sheet or slide part.
    const listed = listedIds(kind, parts.get(main)!.toString('utf8'));
    const listType = kind === 'xlsx' ? 'worksheet' : 'slide';
    const sheetsOrSlides = [...parts.keys()]
      .filter((name) => info.related.some(([pattern, type]) => type === listType && pattern.test(name)))
      .sort(byNumber);
    sheetsOrSlides.forEach((name, i) => {
      const id = listed[i];
      if (id)
        rels.push({
          id,
          type: `${NS.rel}/${listType}`,
          target: path.posix.relative(path.posix.dirname(main), name),
          external: false,
        });
    });
    for (const name of [...parts.keys()].sort(byNumber)) {
      const related = info.related.find(([pattern]) => pattern.test(name));
      if (related) ensure(rels, `${NS.rel}/${related[1]}`, name, main);
    }
    relsParts.set(mainRelsName, rels);
  }
  for (const [name, rels] of relsParts) {
    const source = sourceOf(name);
    const kept = rels.filter((r) => r.external || parts.has(resolveTarget(source, r.target)) || r.target === 'NULL');
    report.relationshipsRemoved += rels.length - kept.length;
    // A rels part of a part that no longer exists is dropped with it.
    if (source && !parts.has(source)) {
      parts.delete(name);
      continue;
    }
    parts.set(name, Buffer.from(relationshipsXml(kept), 'utf8'));
    relsParts.set(name, kept);
  }
  pruneLists(kind, main, parts, relsParts.get(mainRelsName) ?? []);

  const files = new Map<string, Uint8Array>();
  files.set('[Content_Types].xml', Buffer.from(contentTypesXml(kind, main, contentTypes, [...parts.keys()]), 'utf8'));
  for (const [name, data] of parts) files.set(name, data);
  return { files, report };
}

/**
 * A workbook part listing the worksheets that survived, for a workbook whose own workbook.xml
 * was lost (it is often the last part written, so a truncated tail takes it). Sheet names come
 * from docProps/app.xml when it names as many sheets, else Sheet1, Sheet2... The workbook's
 * relationships are then recreated in sheet order. False when no worksheet survived.
 */
function synthesiseWorkbook(parts: Map<string, Buffer>): boolean {
  const sheets = [...parts.keys()].filter((name) => /^xl\/worksheets\/sheet\d+\.xml$/.test(name)).sort(byNumber);
  if (!sheets.length) return false;
  const app = parts.get('docProps/app.xml')?.toString('utf8') ?? '';
  const titles = [
    ...(/<(?:\w+:)?TitlesOfParts>([\s\S]*?)<\/(?:\w+:)?TitlesOfParts>/
      .exec(app)?.[1]
      ?.matchAll(/<vt:lpstr>([^<]*)<\/vt:lpstr>/g) ?? []),
  ].map((m) => m[1]!);
  const names = titles.length === sheets.length ? titles : sheets.map((_, i) => `Sheet${i + 1}`);
  const items = names.map(
    (name, i) => `<sheet name="${escapeAttr(decodeAttr(name))}" sheetId="${i + 1}" r:id="rIdSheet${i + 1}"/>`,
  );
  parts.set(
    'xl/workbook.xml',
    Buffer.from(
      `${XML_HEAD}<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" ` +
        `xmlns:r="${NS.rel}"><sheets>${items.join('')}</sheets></workbook>`,
      'utf8',
    ),
  );
  parts.delete('xl/_rels/workbook.xml.rels');
  return true;
}

const byNumber = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true });

const LIST_ELEMENT: Partial<Record<Kind, string>> = { xlsx: 'sheet', pptx: 'sldId' };
const listPattern = (element: string) =>
  new RegExp(`<(?:\\w+:)?${element}\\s[^>]*?(?:/>|>[\\s\\S]*?</(?:\\w+:)?${element}>)`, 'g');
const relationshipIdOf = (tag: string) => /\sr:id\s*=\s*"([^"]*)"/.exec(tag)?.[1];

/** The relationship ids of the sheets (xlsx) or slides (pptx) the main part lists, in order. */
function listedIds(kind: Kind, xml: string): string[] {
  const element = LIST_ELEMENT[kind];
  return element ? [...xml.matchAll(listPattern(element))].flatMap(([tag]) => relationshipIdOf(tag) ?? []) : [];
}

/** Sheets and slides whose relationship is gone leave the workbook's and presentation's lists. */
function pruneLists(kind: Kind, main: string, parts: Map<string, Buffer>, mainRels: readonly Relationship[]): void {
  const element = LIST_ELEMENT[kind];
  if (!element) return;
  const ids = new Set(mainRels.map((r) => r.id));
  const xml = parts.get(main)!.toString('utf8');
  const pruned = xml.replace(listPattern(element), (tag) => {
    const id = relationshipIdOf(tag);
    return id === undefined || ids.has(id) ? tag : '';
  });
  if (pruned !== xml) parts.set(main, Buffer.from(pruned, 'utf8'));
}

function contentTypesXml(kind: Kind, main: string, original: string | undefined, names: readonly string[]): string {
  const known = new Map<string, string>();
  for (const [, ext, type] of (original ?? '').matchAll(/<Default\s+Extension="([^"]+)"\s+ContentType="([^"]+)"/g))
    known.set(`.${ext!.toLowerCase()}`, type!);
  const overrides = new Map<string, string>();
  for (const [, part, type] of (original ?? '').matchAll(/<Override\s+PartName="\/?([^"]+)"\s+ContentType="([^"]+)"/g))
    overrides.set(decodeAttr(part!), type!);
  // The first pattern of a kind is its main part's: it applies to the main part whatever its name.
  const mainType = KINDS[kind].types[0]![1];
  const patterns: Array<[(name: string) => boolean, string]> = [
    [(name) => name === main, mainType],
    ...[...KINDS[kind].types.slice(1), ...COMMON_TYPES].map(([pattern, type]): [(name: string) => boolean, string] => [
      (name) => pattern.test(name),
      type,
    ]),
  ];
  const defaults = new Map<string, string>([
    ['rels', DEFAULT_TYPES.rels!],
    ['xml', DEFAULT_TYPES.xml!],
  ]);
  const items: string[] = [];
  for (const name of names) {
    const ext = path.posix.extname(name).slice(1).toLowerCase();
    const byPattern = patterns.find(([matches]) => matches(name))?.[1];
    const type = byPattern ?? overrides.get(name);
    if (type && ext !== 'rels')
      items.push(`<Override PartName="/${escapeAttr(name)}" ContentType="${escapeAttr(type)}"/>`);
    else if (!defaults.has(ext)) {
      const byExtension = known.get(`.${ext}`) ?? DEFAULT_TYPES[ext];
      if (byExtension) defaults.set(ext, byExtension);
    }
  }
  const defaultItems = [...defaults].map(
    ([ext, type]) => `<Default Extension="${escapeAttr(ext)}" ContentType="${escapeAttr(type)}"/>`,
  );
  return (
    `${XML_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
    `${defaultItems.join('')}${items.join('')}</Types>`
  );
}

/** Whether LibreOffice opens `file` (it converts it to the same format); the converted file when it does. */
async function libreOfficeOpens(file: string, kind: Kind, ctx: RunContext, name: string): Promise<string | undefined> {
  const info = KINDS[kind];
  const dir = path.join(ctx.workDir, `lo-${name}`);
  await mkdir(dir, { recursive: true });
  const input = path.join(dir, `input.${kind}`);
  await copyFile(file, input);
  try {
    const { output } = await libreOfficeConvert({
      input,
      convertTo: info.convertTo,
      inputFilter: info.filter,
      outDir: path.join(dir, 'out'),
      profileDir: path.join(ctx.workDir, 'lo-profile'),
      signal: ctx.signal,
      timeoutMs: Math.max(1_000, ctx.remainingMs() - 1_000),
    });
    return output;
  } catch (err) {
    ctx.signal.throwIfAborted();
    ctx.log.info('repair-office: LibreOffice could not open the file', {
      attempt: name,
      error: (err as Error).message,
    });
    return undefined;
  }
}

/** Limits of what a repair inflates: far above real documents, far below the run's memory. */
export const REPAIR_LIMITS = { maxParts: 10_000, maxInflatedBytes: 400_000_000 };

export async function repairOffice(inputs: readonly PluginInput[], ctx: RunContext): Promise<FileResult> {
  ctx.signal.throwIfAborted();
  const input = singleInput(inputs);
  const kind = input.format as FormatId as Kind;
  if (!(kind in KINDS)) throw new PluginError(`repair-office cannot repair ${input.format}`);
  const dir = path.join(ctx.workDir, 'repair');
  await mkdir(dir, { recursive: true });
  const output = path.join(dir, `repaired.${kind}`);

  let rebuilt: string | undefined;
  try {
    const salvaged = salvageParts(await readFile(input.path), REPAIR_LIMITS, ctx.signal);
    const { files, report } = rebuildPackage(kind, salvaged);
    ctx.log.info('repair-office rebuilt the package', {
      ...report,
      dropped: report.dropped.length,
      completed: report.completed.length,
    });
    rebuilt = path.join(dir, `rebuilt.${kind}`);
    await writeFile(rebuilt, zipSync(Object.fromEntries(files), { level: 6 }));
  } catch (err) {
    if (!(err instanceof PluginError) || /decompression bomb|more than/.test(err.message)) throw err;
    ctx.log.info('repair-office: the package could not be rebuilt', { error: err.message });
  }
  ctx.progress(30);
  if (rebuilt && (await libreOfficeOpens(rebuilt, kind, ctx, 'rebuilt'))) {
    await copyFile(rebuilt, output);
  } else {
    ctx.progress(60);
    // Last resort: LibreOffice's own reading of the original, written anew.
    const roundTrip = await libreOfficeOpens(input.path, kind, ctx, 'original');
    if (!roundTrip)
      throw new PluginError(`The ${KINDS[kind].label} could not be repaired: too little of it could be read`);
    await copyFile(roundTrip, output);
  }
  ctx.signal.throwIfAborted();
  ctx.progress(100);
  return { path: output, format: kind };
}
