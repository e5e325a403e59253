/**
 * A strict, bounded reader of an MP4/QuickTime file's headers (ISO BMFF boxes): the container's duration and its
 * streams' layout, numbered as ffmpeg's mov demuxer numbers them (every `trak` is a stream, in file order). It runs in
 * the API process at acceptance, so a conversion that needs only the layout starts no ffprobe (ffprobe's own start,
 * a dynamically linked program, costs 60-90 ms). It walks box headers with positioned reads, skipping media data and
 * sample tables, and reads at most MAX_BOXES headers and MAX_PAYLOAD bytes of any one box: hostile input costs little.
 *
 * Whatever it does not fully understand yields undefined, and the caller asks ffprobe: no `moov`, a fragmented file
 * (`mvex`, `moof`), a compressed `moov`, a zero or unknown duration, cover art (ffmpeg adds it as streams after the
 * tracks), chapter pictures, a track with other than one sample description, an unknown handler or box where the
 * layout is decided, sizes that do not fit their parent.
 * It reads no codec, channel count (an MP4's AAC description says 2 whatever the stream has), tags or chapters, and
 * the audio sample rate is the sample description's: ops that need codec facts probe with ffprobe in their run
 * (MediaRun.open's `needs`).
 */
import type { MediaProbe, MediaStream } from '../../../core/engines/ffmpeg.js';
import { decline, type HeaderFile, headerStream, readHeaderFile } from './header-file.js';

/** Box headers read in one file, all levels together: real files have a few dozen to a few hundred. */
const MAX_BOXES = 5000;
/** Nesting read: moov > trak > mdia > minf > stbl > stsd is the deepest needed, udta > meta > ilst the next. */
const MAX_DEPTH = 8;
/** The most read into memory of one box (mvhd, mdhd, hdlr, stsd, elst): these are tens to hundreds of bytes. */
const MAX_PAYLOAD = 64 * 1024;
const MAX_TRACKS = 64;
/** Runs of equal sample durations (stts) added up in one track: an hour of variable-rate 60 fps video has 216,000. */
const MAX_SAMPLE_RUNS = 1 << 20;

/** What ffprobe calls the mov demuxer's formats. */
export const MOV_FORMAT_NAME = 'mov,mp4,m4a,3gp,3g2,mj2';

/** Top-level boxes besides moov that do not change what ffmpeg reads. */
const SKIPPED_TOP_LEVEL = new Set(['ftyp', 'mdat', 'free', 'skip', 'wide', 'uuid', 'pdin']);
/** moov's children that make no streams and change no duration; mvhd, trak, udta and meta are read. */
const SKIPPED_IN_MOOV = new Set(['iods', 'free', 'skip', 'uuid']);
/** trak's children that make no streams; tkhd, mdia, edts, tref, udta and meta are read. */
const SKIPPED_IN_TRAK = new Set(['free', 'skip', 'tapt', 'load', 'txas']);
/** Timed text tracks ffmpeg reads as subtitles (mov_text): the handlers and sample entries verified against ffprobe. */
const TEXT_HANDLERS = new Set(['text', 'sbtl']);
const TEXT_ENTRIES = new Set(['tx3g', 'text']);

interface Box {
  type: string;
  /** Where the box's payload starts and where the box ends, as file offsets. */
  start: number;
  end: number;
}

interface Track {
  id?: number;
  handler?: string;
  timescale?: number;
  mediaDuration?: number;
  /** The samples' durations added up (stts), in the media's timescale. */
  sampleDuration?: number;
  /** How long the edit list presents the media, in the movie's timescale, when it has one (editedDuration). */
  editedDuration?: number;
  entry?: { format: string; payload: Buffer };
  /** Track ids this track names as its chapters (tref > chap). */
  chapters: number[];
}

interface Movie {
  timescale?: number;
  duration?: number;
  tracks: Track[];
}

class BoxReader {
  private boxes = 0;

  constructor(private readonly file: HeaderFile) {}

  /** The boxes between `start` and `end`, in order; each must fit inside them. */
  async *children(start: number, end: number, depth: number): AsyncGenerator<Box> {
    if (depth > MAX_DEPTH) decline('nested too deep');
    let offset = start;
    while (offset < end) {
      if (++this.boxes > MAX_BOXES) decline('too many boxes');
      if (end - offset < 8) decline('a box header past its parent');
      const header = await this.file.readExactly(offset, Math.min(16, end - offset));
      let size = header.readUInt32BE(0);
      const type = header.toString('latin1', 4, 8);
      let headerSize = 8;
      if (size === 1) {
        if (header.length < 16) decline('a 64-bit size past its parent');
        const large = header.readBigUInt64BE(8);
        if (large > BigInt(Number.MAX_SAFE_INTEGER)) decline('a 64-bit size too large');
        size = Number(large);
        headerSize = 16;
      } else if (size === 0) {
        // "To the end of the file": only media data, last at the top level, is written so.
        if (depth !== 0 || type !== 'mdat') decline('a box sized to the end of the file');
        size = end - offset;
      }
      if (size < headerSize || offset + size > end) decline('a box size that does not fit');
      yield { type, start: offset + headerSize, end: offset + size };
      offset += size;
    }
  }

  /** The payload of a small box (at most MAX_PAYLOAD bytes), read whole. */
  payload(box: Box): Promise<Buffer> {
    if (box.end - box.start > MAX_PAYLOAD) decline(`a ${box.type} box too large`);
    return this.file.readExactly(box.start, box.end - box.start);
  }

  /**
   * The durations of an stts box's samples added up (its runs of equal durations, read 64 KiB at a time): a variable
   * frame rate makes a run per frame, a table too long to read whole.
   */
  async sampleTableDuration(stts: Box): Promise<number> {
    const count = uint32(await this.file.readExactly(stts.start, 8), 4);
    if (count > MAX_SAMPLE_RUNS || stts.start + 8 + count * 8 > stts.end) decline('an stts table that does not fit');
    let total = 0;
    for (let done = 0; done < count; ) {
      const runs = Math.min(count - done, MAX_PAYLOAD / 8);
      const table = await this.file.readExactly(stts.start + 8 + done * 8, runs * 8);
      for (let at = 0; at < table.length; at += 8) total += table.readUInt32BE(at) * table.readUInt32BE(at + 4);
      done += runs;
    }
    if (!Number.isSafeInteger(total)) decline('a sample table duration too large');
    return total;
  }
}

/**
 * The container duration and streams of an MP4/QuickTime file, read from its headers; undefined when anything is
 * unusual (see the module comment) or the file cannot be read: the caller then asks ffprobe.
 */
export function readMovHeaders(filePath: string): Promise<MediaProbe | undefined> {
  return readHeaderFile(filePath, async (file) => {
    const reader = new BoxReader(file);
    let movie: Movie | undefined;
    for await (const box of reader.children(0, file.size, 0)) {
      if (box.type === 'moov') {
        if (movie) decline('a second moov');
        movie = await readMovie(reader, box);
      } else if (!SKIPPED_TOP_LEVEL.has(box.type)) decline(`a top-level ${box.type}`);
    }
    if (!movie) decline('no moov');
    return describe(movie);
  });
}

async function readMovie(reader: BoxReader, moov: Box): Promise<Movie> {
  const movie: Movie = { tracks: [] };
  for await (const box of reader.children(moov.start, moov.end, 1)) {
    if (box.type === 'mvhd') {
      if (movie.timescale !== undefined) decline('a second mvhd');
      const mvhd = await reader.payload(box);
      // version 1: 64-bit times (creation, modification, duration); version 0: 32-bit.
      const version = byte(mvhd, 0);
      movie.timescale = uint32(mvhd, version === 1 ? 20 : 12);
      movie.duration = version === 1 ? uint64(mvhd, 24) : uint32(mvhd, 16);
      if (version === 0 && movie.duration === 0xffffffff) decline('an unknown duration');
    } else if (box.type === 'trak') {
      if (movie.tracks.length >= MAX_TRACKS) decline('too many tracks');
      movie.tracks.push(await readTrack(reader, box));
    } else if (box.type === 'udta' || box.type === 'meta') {
      await refuseCoverArt(reader, box, 2);
    } else if (!SKIPPED_IN_MOOV.has(box.type)) decline(`${box.type} in moov`);
  }
  return movie;
}

async function readTrack(reader: BoxReader, trak: Box): Promise<Track> {
  const track: Track = { chapters: [] };
  for await (const box of reader.children(trak.start, trak.end, 2)) {
    if (box.type === 'tkhd') {
      const tkhd = await reader.payload(box);
      track.id = uint32(tkhd, byte(tkhd, 0) === 1 ? 20 : 12);
    } else if (box.type === 'mdia') {
      await readMedia(reader, box, track);
    } else if (box.type === 'edts') {
      for await (const edts of reader.children(box.start, box.end, 3)) {
        if (edts.type === 'elst') track.editedDuration = editedDuration(await reader.payload(edts));
      }
    } else if (box.type === 'tref') {
      for await (const reference of reader.children(box.start, box.end, 3)) {
        if (reference.type !== 'chap') continue;
        const ids = await reader.payload(reference);
        for (let at = 0; at + 4 <= ids.length; at += 4) track.chapters.push(ids.readUInt32BE(at));
      }
    } else if (box.type === 'udta' || box.type === 'meta') {
      await refuseCoverArt(reader, box, 3);
    } else if (!SKIPPED_IN_TRAK.has(box.type)) decline(`${box.type} in trak`);
  }
  return track;
}

async function readMedia(reader: BoxReader, mdia: Box, track: Track): Promise<void> {
  for await (const box of reader.children(mdia.start, mdia.end, 3)) {
    if (box.type === 'mdhd') {
      const mdhd = await reader.payload(box);
      const version = byte(mdhd, 0);
      track.timescale = uint32(mdhd, version === 1 ? 20 : 12);
      track.mediaDuration = version === 1 ? uint64(mdhd, 24) : uint32(mdhd, 16);
    } else if (box.type === 'hdlr') {
      // version and flags, then QuickTime's component type (or zero), then the handler.
      track.handler = (await reader.payload(box)).toString('latin1', 8, 12);
    } else if (box.type === 'minf') {
      for await (const minf of reader.children(box.start, box.end, 4)) {
        if (minf.type !== 'stbl') continue;
        for await (const stbl of reader.children(minf.start, minf.end, 5)) {
          if (stbl.type === 'stsd') {
            if (track.entry) decline('a second stsd');
            track.entry = sampleEntry(await reader.payload(stbl));
          } else if (stbl.type === 'stts') {
            if (track.sampleDuration !== undefined) decline('a second stts');
            track.sampleDuration = await reader.sampleTableDuration(stbl);
          }
        }
      }
    }
  }
}

/** The one sample description of an stsd box: its format and its bytes after the 8-byte header. */
function sampleEntry(stsd: Buffer): { format: string; payload: Buffer } {
  if (uint32(stsd, 4) !== 1) decline('other than one sample description');
  const size = uint32(stsd, 8);
  if (size < 16 || 8 + size > stsd.length) decline('a sample description size that does not fit');
  return { format: stsd.toString('latin1', 12, 16), payload: stsd.subarray(16, 8 + size) };
}

/**
 * How long an elst box presents the track, empty edits (a delay) included, in the movie's timescale: ffmpeg cuts the
 * stream's duration to it (an encoder's priming samples are cut so). More than one edit showing media is a real edit
 * decision list: declined.
 */
function editedDuration(elst: Buffer): number {
  const version = byte(elst, 0);
  const count = uint32(elst, 4);
  const entrySize = version === 1 ? 20 : 12;
  if (count === 0 || 8 + count * entrySize > elst.length) decline('an edit list that does not fit');
  let total = 0;
  let shown = 0;
  for (let at = 8; at < 8 + count * entrySize; at += entrySize) {
    total += version === 1 ? uint64(elst, at) : uint32(elst, at);
    const mediaTime = version === 1 ? elst.readBigInt64BE(at + 8) : BigInt(elst.readInt32BE(at + 4));
    if (mediaTime !== -1n) shown++;
  }
  if (shown !== 1) decline('an edit list of other than one edit showing media');
  return total;
}

/** Cover art (ilst > covr) becomes attached-picture streams after the tracks in ffmpeg: decline it. */
async function refuseCoverArt(reader: BoxReader, box: Box, depth: number): Promise<void> {
  // ISO's meta is a full box (4 bytes of version and flags before its children); QuickTime's is not.
  let start = box.start;
  if (box.type === 'meta' && box.end - start >= 8) {
    const head = await reader.payload({ type: 'meta', start, end: start + 8 });
    if (head.readUInt32BE(0) === 0 && head.toString('latin1', 4, 8) !== 'hdlr') start += 4;
  }
  for await (const child of reader.children(start, box.end, depth)) {
    if (child.type === 'covr') decline('cover art');
    if (child.type === 'meta' || child.type === 'ilst') await refuseCoverArt(reader, child, depth + 1);
  }
}

function describe(movie: Movie): MediaProbe {
  const { timescale, duration } = movie;
  if (!timescale || !duration) decline('no duration');
  // ffmpeg keeps the chapter references of one track, the last read: tracks naming different ones are not guessed at.
  const named = new Set(movie.tracks.filter((track) => track.chapters.length).map((track) => track.chapters.join()));
  if (named.size > 1) decline('different chapters named by two tracks');
  const chapterTracks = new Set(movie.tracks.flatMap((track) => track.chapters));
  const streams = movie.tracks.map((track, index) => describeTrack(track, index, timescale, chapterTracks));
  return { formatName: MOV_FORMAT_NAME, durationSec: duration / timescale, tags: {}, streams, chapters: [] };
}

function describeTrack(track: Track, index: number, movieTimescale: number, chapterTracks: Set<number>): MediaStream {
  const { handler, entry, timescale, mediaDuration } = track;
  if (!handler || !entry || !timescale || mediaDuration === undefined) decline('a track without its headers');
  const type = streamType(handler, entry.format, track.id !== undefined && chapterTracks.has(track.id));
  const stream = headerStream(index, type);
  // As ffmpeg has it: the media header's duration, cut to the samples' and to the edit list's.
  stream.durationSec = Math.min(
    mediaDuration / timescale,
    track.sampleDuration ? track.sampleDuration / timescale : Infinity,
    track.editedDuration !== undefined ? track.editedDuration / movieTimescale : Infinity,
  );
  const { payload } = entry;
  if (stream.type === 'video') {
    // reserved and data reference (8), version, revision, vendor, temporal and spatial quality (16), then the size.
    if (payload.length < 28) decline('a visual sample entry too short');
    stream.width = payload.readUInt16BE(24);
    stream.height = payload.readUInt16BE(26);
    // ffprobe may find the size in the stream where the description has none: it decides.
    if (!stream.width || !stream.height) decline('a visual sample entry without a frame size');
  } else if (stream.type === 'audio') {
    if (payload.length < 20) decline('an audio sample entry too short');
    const version = payload.readUInt16BE(8);
    if (version === 2) {
      // QuickTime's version 2: a 64-bit float rate and a 32-bit channel count after the fixed fields.
      if (payload.length < 40) decline('an audio sample entry too short');
      const rate = payload.readDoubleBE(32);
      stream.sampleRate = Number.isFinite(rate) && rate > 0 ? rate : undefined;
    } else {
      stream.sampleRate = payload.readUInt32BE(24) / 65536 || undefined;
    }
  }
  return stream;
}

/** The stream type ffmpeg gives a track: from its handler, and for subtitles its sample entry too. */
function streamType(handler: string, format: string, chapterTrack: boolean): string {
  if (handler === 'vide') {
    // A video track named as chapters holds chapter pictures: attached pictures in ffmpeg.
    if (chapterTrack) decline('chapter pictures');
    return 'video';
  }
  if (handler === 'soun') return chapterTrack ? decline('a chapter audio track') : 'audio';
  // A text track named as chapters is read as chapters, and left as a data stream.
  if (TEXT_HANDLERS.has(handler) && TEXT_ENTRIES.has(format)) return chapterTrack ? 'data' : 'subtitle';
  if (handler === 'tmcd' && format === 'tmcd') return 'data';
  return decline(`a ${handler} track of ${format}`);
}

function byte(buffer: Buffer, at: number): number {
  if (at + 1 > buffer.length) decline('a box too short');
  return buffer.readUInt8(at);
}

function uint32(buffer: Buffer, at: number): number {
  if (at + 4 > buffer.length) decline('a box too short');
  return buffer.readUInt32BE(at);
}

function uint64(buffer: Buffer, at: number): number {
  if (at + 8 > buffer.length) decline('a box too short');
  const value = buffer.readBigUInt64BE(at);
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) decline('a 64-bit value too large');
  return Number(value);
}
