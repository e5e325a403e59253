/**
 * A strict, bounded reader of a Matroska/WebM file's headers (EBML): the segment's duration and its tracks, numbered
 * as ffmpeg's matroska demuxer numbers them (every track in TrackEntry order), so a conversion that needs only the
 * layout starts no ffprobe (mov-headers.ts is its MP4 twin). It reads the Segment's top-level elements up to the first
 * Cluster, skipping by size, at most MAX_ELEMENTS element headers and MAX_PAYLOAD bytes of any one element.
 *
 * It answers undefined, and the caller asks ffprobe, on anything unusual: no Info or Tracks before the first Cluster,
 * no Duration (a live recording), attachments (ffmpeg appends them as streams; cover art is one), a track type other
 * than video, audio or subtitle (ffmpeg skips those), a track without a codec, compressed or encrypted tracks, a
 * SeekHead naming attachments or another SeekHead, elements of unknown size or that do not fit their parent.
 * Like the MP4 reader it reads no codec names, tags or chapters; channel counts and sample rates are the track's.
 */
import type { MediaProbe, MediaStream } from '../../../core/engines/ffmpeg.js';
import { decline, type HeaderFile, headerStream, readHeaderFile } from './header-file.js';

const MAX_ELEMENTS = 5000;
const MAX_PAYLOAD = 256 * 1024;
const MAX_TRACKS = 64;

/** What ffprobe calls the matroska demuxer's formats. */
const MATROSKA_FORMAT_NAME = 'matroska,webm';

const ID = {
  ebml: 0x1a45dfa3,
  docType: 0x4282,
  segment: 0x18538067,
  seekHead: 0x114d9b74,
  seek: 0x4dbb,
  seekId: 0x53ab,
  info: 0x1549a966,
  timestampScale: 0x2ad7b1,
  duration: 0x4489,
  tracks: 0x1654ae6b,
  trackEntry: 0xae,
  trackType: 0x83,
  codecId: 0x86,
  contentEncodings: 0x6d80,
  video: 0xe0,
  pixelWidth: 0xb0,
  pixelHeight: 0xba,
  audio: 0xe1,
  samplingFrequency: 0xb5,
  channels: 0x9f,
  cluster: 0x1f43b675,
  attachments: 0x1941a469,
} as const;

/** EBMLReadVersion, EBMLMaxIDLength, EBMLMaxSizeLength, DocTypeReadVersion: the most ffmpeg reads. */
const EBML_HEADER_LIMITS: Readonly<Record<number, number>> = { 17143: 1, 17138: 4, 17139: 8, 17029: 3 };
/** Segment children that make no streams and change no duration: cues, chapters, tags, padding, checksums. */
const SKIPPED_IN_SEGMENT: ReadonlySet<number> = new Set([0x1c53bb6b, 0x1043a770, 0x1254c367, 0xec, 0xbf]);
const TRACK_TYPES: Readonly<Record<number, string>> = { 1: 'video', 2: 'audio', 17: 'subtitle' };

interface Element {
  id: number;
  start: number;
  end: number;
}

class ElementReader {
  private elements = 0;

  constructor(private readonly file: HeaderFile) {}

  /** The elements between `start` and `end`, in order; each must fit inside them. */
  async *children(start: number, end: number): AsyncGenerator<Element> {
    let offset = start;
    while (offset < end) {
      if (++this.elements > MAX_ELEMENTS) decline('too many elements');
      const header = await this.file.readExactly(offset, Math.min(12, end - offset));
      const id = vint(header, 0, 4, true);
      const size = vint(header, id.length, 8, false);
      if (size.value === undefined) decline('an element of unknown size');
      const payloadStart = offset + id.length + size.length;
      if (payloadStart + size.value > end) decline('an element that does not fit');
      yield { id: id.value!, start: payloadStart, end: payloadStart + size.value };
      offset = payloadStart + size.value;
    }
  }

  async payload(element: Element): Promise<Buffer> {
    if (element.end - element.start > MAX_PAYLOAD) decline('an element too large');
    return this.file.readExactly(element.start, element.end - element.start);
  }
}

/**
 * An EBML variable-length integer at `at`: an element ID keeps its length marker, a size drops it (all ones: unknown,
 * undefined here).
 */
function vint(buffer: Buffer, at: number, maxLength: number, keepMarker: boolean): { value?: number; length: number } {
  if (at >= buffer.length) decline('a header past its parent');
  const first = buffer[at]!;
  // The length is one more than the leading zero bits of the first byte.
  const length = Math.clz32(first) - 23;
  if (length > maxLength || at + length > buffer.length) decline('a malformed element header');
  let value = keepMarker ? first : first & (0xff >> length);
  let allOnes = value === 0xff >> length;
  for (let i = 1; i < length; i++) {
    value = value * 256 + buffer[at + i]!;
    allOnes &&= buffer[at + i] === 0xff;
  }
  if (!Number.isSafeInteger(value)) decline('a size too large');
  return { ...(keepMarker || !allOnes ? { value } : {}), length };
}

function unsigned(data: Buffer): number {
  if (data.length === 0 || data.length > 6) decline('an integer of unusual length');
  return data.readUIntBE(0, data.length);
}

function float(data: Buffer): number {
  if (data.length === 4) return data.readFloatBE(0);
  if (data.length === 8) return data.readDoubleBE(0);
  return decline('a float of unusual length');
}

/**
 * The duration and streams of a Matroska/WebM file, read from its headers; undefined when anything is unusual (see
 * the module comment) or the file cannot be read: the caller then asks ffprobe.
 */
export function readMatroskaHeaders(filePath: string): Promise<MediaProbe | undefined> {
  return readHeaderFile(filePath, async (file) => {
    const reader = new ElementReader(file);
    const top = reader.children(0, file.size);
    const ebml = (await top.next()).value as Element | undefined;
    if (ebml?.id !== ID.ebml) decline('no EBML header');
    await checkEbmlHeader(reader, ebml);
    const segment = (await top.next()).value as Element | undefined;
    if (segment?.id !== ID.segment) decline('no Segment after the EBML header');
    return await readSegment(reader, segment);
  });
}

/**
 * The EBML header ffmpeg accepts: a Matroska or WebM document within the versions and field sizes it reads (it refuses
 * the others; an absent DocType it takes for Matroska, which this reader declines).
 */
async function checkEbmlHeader(reader: ElementReader, ebml: Element): Promise<void> {
  let docType: string | undefined;
  for await (const child of reader.children(ebml.start, ebml.end)) {
    const limit = EBML_HEADER_LIMITS[child.id];
    if (limit !== undefined && unsigned(await reader.payload(child)) > limit) decline('an EBML version ffmpeg refuses');
    if (child.id === ID.docType) docType = (await reader.payload(child)).toString('latin1').replace(/\0+$/, '');
  }
  if (docType !== 'matroska' && docType !== 'webm') decline('not Matroska');
}

async function readSegment(reader: ElementReader, segment: Element): Promise<MediaProbe> {
  let durationSec: number | undefined;
  let streams: MediaStream[] | undefined;
  for await (const element of reader.children(segment.start, segment.end)) {
    if (element.id === ID.cluster) break;
    if (element.id === ID.info) {
      if (durationSec !== undefined) decline('a second Info');
      durationSec = await readDuration(reader, element);
    } else if (element.id === ID.tracks) {
      if (streams) decline('a second Tracks');
      streams = await readTracks(reader, element);
    } else if (element.id === ID.seekHead) {
      await refuseSeeks(reader, element);
    } else if (!SKIPPED_IN_SEGMENT.has(element.id)) decline(`element ${element.id.toString(16)} in the Segment`);
  }
  if (!durationSec || !streams) decline('no Info or Tracks before the first Cluster');
  return { formatName: MATROSKA_FORMAT_NAME, durationSec, tags: {}, streams, chapters: [] };
}

async function readDuration(reader: ElementReader, info: Element): Promise<number> {
  let scale = 1_000_000;
  let duration: number | undefined;
  for await (const child of reader.children(info.start, info.end)) {
    if (child.id === ID.timestampScale) scale = unsigned(await reader.payload(child));
    else if (child.id === ID.duration) duration = float(await reader.payload(child));
  }
  const seconds = ((duration ?? 0) * scale) / 1e9;
  if (!(Number.isFinite(seconds) && seconds > 0)) decline('no duration');
  return seconds;
}

/** Attachments become streams in ffmpeg wherever the SeekHead places them; a SeekHead naming another is declined. */
async function refuseSeeks(reader: ElementReader, seekHead: Element): Promise<void> {
  for await (const seek of reader.children(seekHead.start, seekHead.end)) {
    if (seek.id !== ID.seek) continue;
    for await (const child of reader.children(seek.start, seek.end)) {
      if (child.id !== ID.seekId) continue;
      const target = unsigned(await reader.payload(child));
      if (target === ID.attachments) decline('attachments');
      if (target === ID.seekHead) decline('a second SeekHead');
    }
  }
}

async function readTracks(reader: ElementReader, tracks: Element): Promise<MediaStream[]> {
  const streams: MediaStream[] = [];
  for await (const entry of reader.children(tracks.start, tracks.end)) {
    if (entry.id !== ID.trackEntry) continue;
    if (streams.length >= MAX_TRACKS) decline('too many tracks');
    streams.push(await readTrack(reader, entry, streams.length));
  }
  return streams;
}

async function readTrack(reader: ElementReader, entry: Element, index: number): Promise<MediaStream> {
  const stream = headerStream(index, '');
  let hasCodec = false;
  for await (const child of reader.children(entry.start, entry.end)) {
    if (child.id === ID.trackType) {
      stream.type = TRACK_TYPES[unsigned(await reader.payload(child))] ?? decline('a track type ffmpeg skips');
    } else if (child.id === ID.codecId) {
      hasCodec = child.end > child.start;
    } else if (child.id === ID.contentEncodings) {
      decline('a compressed or encrypted track');
    } else if (child.id === ID.video) {
      for await (const video of reader.children(child.start, child.end)) {
        if (video.id === ID.pixelWidth) stream.width = unsigned(await reader.payload(video));
        else if (video.id === ID.pixelHeight) stream.height = unsigned(await reader.payload(video));
      }
    } else if (child.id === ID.audio) {
      stream.sampleRate = 8000; // Matroska's default
      stream.channels = 1;
      for await (const audio of reader.children(child.start, child.end)) {
        if (audio.id === ID.samplingFrequency) stream.sampleRate = float(await reader.payload(audio));
        else if (audio.id === ID.channels) stream.channels = unsigned(await reader.payload(audio));
      }
    }
  }
  if (!stream.type || !hasCodec) decline('a track without a type or codec');
  if (stream.type === 'video' && !(stream.width && stream.height)) decline('a video track without a frame size');
  if (stream.type === 'audio' && !(stream.sampleRate! > 0 && stream.channels! > 0)) decline('an odd audio track');
  return stream;
}
