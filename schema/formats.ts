/**
 * Every format the service knows, keyed by its id: the lower-case extension used in `to`
 * and in file names. `sniff` lists what magic-byte detection (file-type) may report for a
 * genuine file of this format; `text` formats have no magic bytes and are checked as text.
 */
export type FormatCategory =
  | 'image'
  | 'audio'
  | 'video'
  | 'document'
  | 'office'
  | 'pdf'
  | 'data'
  | 'subtitle'
  | 'archive';

export interface FormatInfo {
  category: FormatCategory;
  mime: string;
  /** File extension of outputs in this format (differs from the id for e.g. prores -> mov). */
  extension: string;
  /** Acceptable file-type detections; empty for formats checked as text. */
  sniff: readonly string[];
  text?: boolean;
  /** Credit class base regardless of size (spec credit table). */
  creditBase: 1 | 3 | 10;
  /**
   * A plugin-declared format's own sniffer: whether the first bytes (up to 64 KiB) are genuinely
   * this format. When present it decides alone (instead of `sniff` or the text check).
   */
  detect?: (head: Buffer) => boolean;
  /** Another id of the very same format (jpeg is jpg): a target given as this id is served as that one. */
  sameAs?: string;
}

const f = (
  category: FormatCategory,
  mime: string,
  sniff: string[],
  creditBase: 1 | 3 | 10,
  extra: Partial<FormatInfo> = {},
): FormatInfo => ({ category, mime, extension: '', sniff, creditBase, ...extra });

// ISO base media files are told apart by brand only, and real files are often mislabelled
// between these containers; accept any of the family for any of its members.
const isoVideo = ['mp4', 'mov', 'm4v', '3gp', '3g2', 'm4a', 'm4b', 'f4v'];
const mpegTs = ['mts', 'm2ts', 'ts'];

const table = {
  // images
  png: f('image', 'image/png', ['png', 'apng'], 1),
  jpg: f('image', 'image/jpeg', ['jpg'], 1),
  jpeg: f('image', 'image/jpeg', ['jpg'], 1, { extension: 'jpg', sameAs: 'jpg' }),
  webp: f('image', 'image/webp', ['webp'], 1),
  avif: f('image', 'image/avif', ['avif', 'heic'], 1),
  gif: f('image', 'image/gif', ['gif'], 1),
  bmp: f('image', 'image/bmp', ['bmp'], 1),
  heic: f('image', 'image/heic', ['heic', 'avif'], 3),
  heif: f('image', 'image/heif', ['heic', 'avif'], 3),
  svg: f('image', 'image/svg+xml', [], 3, { text: true }),
  tiff: f('image', 'image/tiff', ['tif'], 1),
  ico: f('image', 'image/x-icon', ['ico'], 1),
  // video
  mp4: f('video', 'video/mp4', isoVideo, 10),
  mov: f('video', 'video/quicktime', isoVideo, 10),
  avi: f('video', 'video/x-msvideo', ['avi'], 10),
  webm: f('video', 'video/webm', ['webm', 'mkv'], 10),
  mkv: f('video', 'video/x-matroska', ['mkv', 'webm'], 10),
  wmv: f('video', 'video/x-ms-wmv', ['asf', 'wmv'], 10),
  flv: f('video', 'video/x-flv', ['flv'], 10),
  m4v: f('video', 'video/x-m4v', isoVideo, 10),
  '3gp': f('video', 'video/3gpp', isoVideo, 10),
  mpeg: f('video', 'video/mpeg', ['mpg', 'mp2', 'mp1'], 10),
  ts: f('video', 'video/mp2t', mpegTs, 10),
  mts: f('video', 'video/mp2t', mpegTs, 10),
  m2ts: f('video', 'video/mp2t', mpegTs, 10),
  vob: f('video', 'video/dvd', ['mpg', 'mp2', 'mp1'], 10),
  ogv: f('video', 'video/ogg', ['ogv', 'ogg', 'oga', 'ogx', 'opus', 'spx'], 10),
  prores: f('video', 'video/quicktime', isoVideo, 10, { extension: 'mov' }),
  dnxhr: f('video', 'video/quicktime', isoVideo, 10, { extension: 'mov' }),
  // audio
  mp3: f('audio', 'audio/mpeg', ['mp3', 'mp2', 'mp1'], 3),
  wav: f('audio', 'audio/wav', ['wav'], 3),
  ogg: f('audio', 'audio/ogg', ['ogg', 'oga', 'opus', 'ogx', 'spx'], 3),
  flac: f('audio', 'audio/flac', ['flac'], 3),
  aac: f('audio', 'audio/aac', ['aac'], 3),
  m4a: f('audio', 'audio/mp4', isoVideo, 3),
  opus: f('audio', 'audio/opus', ['opus', 'ogg', 'oga'], 3),
  aiff: f('audio', 'audio/aiff', ['aif'], 3),
  wma: f('audio', 'audio/x-ms-wma', ['asf', 'wma'], 3),
  amr: f('audio', 'audio/amr', ['amr'], 3),
  m4b: f('audio', 'audio/mp4', isoVideo, 3),
  mp2: f('audio', 'audio/mpeg', ['mp2', 'mp3', 'mp1'], 3),
  ac3: f('audio', 'audio/ac3', ['ac3'], 3),
  // documents
  pdf: f('pdf', 'application/pdf', ['pdf'], 10),
  // An encrypted DOCX, PPTX or XLSX is an OLE compound file (cfb) holding the encrypted package.
  docx: f(
    'office',
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    ['docx', 'zip', 'cfb'],
    10,
  ),
  pptx: f(
    'office',
    'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    ['pptx', 'zip', 'cfb'],
    10,
  ),
  xlsx: f('office', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', ['xlsx', 'zip', 'cfb'], 10),
  doc: f('office', 'application/msword', ['cfb'], 10),
  xls: f('office', 'application/vnd.ms-excel', ['cfb'], 10),
  ppt: f('office', 'application/vnd.ms-powerpoint', ['cfb'], 10),
  odt: f('office', 'application/vnd.oasis.opendocument.text', ['odt', 'zip'], 10),
  ods: f('office', 'application/vnd.oasis.opendocument.spreadsheet', ['ods', 'zip'], 10),
  odp: f('office', 'application/vnd.oasis.opendocument.presentation', ['odp', 'zip'], 10),
  rtf: f('document', 'application/rtf', ['rtf'], 3),
  txt: f('document', 'text/plain', [], 3, { text: true }),
  epub: f('document', 'application/epub+zip', ['epub', 'zip'], 3),
  md: f('document', 'text/markdown', [], 3, { text: true }),
  html: f('document', 'text/html', [], 3, { text: true }),
  // A web address to render (Windows' Internet Shortcut file, or a text file holding one URL).
  url: f('document', 'application/internet-shortcut', [], 3, { text: true }),
  // data and subtitles
  csv: f('data', 'text/csv', [], 3, { text: true }),
  json: f('data', 'application/json', [], 3, { text: true }),
  // JSON Lines: the chunks of op=chunk, one per line.
  jsonl: f('data', 'application/jsonl', [], 3, { text: true }),
  srt: f('subtitle', 'application/x-subrip', [], 3, { text: true }),
  vtt: f('subtitle', 'text/vtt', [], 3, { text: true }),
  // outputs of multi-file ops
  zip: f('archive', 'application/zip', ['zip'], 3),
} satisfies Record<string, FormatInfo>;

export type FormatId = keyof typeof table;
export const FORMAT_IDS = Object.keys(table) as FormatId[];
export const FORMATS: Record<FormatId, FormatInfo> = Object.fromEntries(
  Object.entries(table).map(([id, info]) => [id, { ...info, extension: info.extension || id }]),
) as Record<FormatId, FormatInfo>;

/** A known format: built in, or declared by a loaded plugin (see registerFormat). */
export function isFormatId(value: string): value is FormatId {
  return Object.hasOwn(FORMATS, value);
}

/**
 * The id a format is known by to the plugins: `jpeg` names the format plugins declare as `jpg`. Any other name is
 * returned as it is (an unknown one is refused later, by the registry).
 */
export function canonicalFormat(name: string): string {
  return Object.hasOwn(FORMATS, name) ? (FORMATS[name as FormatId].sameAs ?? name) : name;
}

/** Extension aliases seen on uploaded file names. */
const EXTENSION_ALIASES: Record<string, FormatId> = {
  tif: 'tiff',
  jpe: 'jpg',
  aif: 'aiff',
  mpg: 'mpeg',
  oga: 'ogg',
  htm: 'html',
};
const BUILTIN = new Set<string>([...FORMAT_IDS, ...Object.keys(EXTENSION_ALIASES)]);

/** Whether a name is a built-in format id or a built-in extension alias. */
export function isBuiltinFormat(name: string): boolean {
  return BUILTIN.has(name);
}

/** A declared format's credit class when it names none: the spec's table by category. */
export const CATEGORY_CREDIT_BASE: Record<FormatCategory, 1 | 3 | 10> = {
  image: 1,
  audio: 3,
  video: 10,
  document: 3,
  office: 10,
  pdf: 10,
  data: 3,
  subtitle: 3,
  archive: 3,
};

/** Names (id and extension) of plugin-declared formats -> the plugin that declared them. */
const declaredBy = new Map<string, string>();

/**
 * Adds a plugin-declared format to the table every service reads (file names, sniffing, credits,
 * output names). Only the registry calls this, at start-up, for manifests it has validated.
 * Returns a problem instead when the id or extension is built in or declared by another plugin;
 * declaring it again for the same plugin replaces it (a process may build several registries).
 */
export function registerFormat(id: string, info: FormatInfo, owner: string): string | undefined {
  const extension = info.extension || id;
  const names = [...new Set([id, extension])];
  for (const name of names) {
    if (BUILTIN.has(name)) return `format '${name}' is built in`;
    const other = declaredBy.get(name);
    if (other !== undefined && other !== owner) return `format '${name}' is already declared by plugin '${other}'`;
  }
  for (const name of names) declaredBy.set(name, owner);
  (FORMATS as Record<string, FormatInfo>)[id] = { ...info, extension };
  if (extension !== id) EXTENSION_ALIASES[extension] = id as FormatId;
  return undefined;
}

/** The declared format of an upload, from its file name; undefined when unknown. */
export function formatFromFilename(filename: string): FormatId | undefined {
  const dot = filename.lastIndexOf('.');
  if (dot < 0) return undefined;
  const ext = filename.slice(dot + 1).toLowerCase();
  if (isFormatId(ext)) return ext;
  return EXTENSION_ALIASES[ext];
}
