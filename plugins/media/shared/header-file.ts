/**
 * What the in-process media header readers (mov-headers.ts, matroska-headers.ts) share: a file opened read-only,
 * read only in exact, positioned pieces, and closed whatever happens; and the stream record they fill. The readers
 * are strict on purpose: they decline anything unusual (a short read included) rather than guess, and their caller
 * then asks ffprobe, which reads the file or says with its own message why it cannot.
 */
import { open, type FileHandle } from 'node:fs/promises';
import type { MediaStream } from '../../../core/engines/ffmpeg.js';

/** Thrown inside a header reader for anything it declines; readHeaderFile answers undefined for it. */
export class HeaderDeclined extends Error {}

export function decline(why: string): never {
  throw new HeaderDeclined(why);
}

/** A media file open for a header reader: its size, and exact reads at positions within it. */
export class HeaderFile {
  constructor(
    private readonly handle: FileHandle,
    readonly size: number,
  ) {}

  /** Exactly `length` bytes from `position`; declined where the file ends first. */
  async readExactly(position: number, length: number): Promise<Buffer> {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await this.handle.read(buffer, 0, length, position);
    if (bytesRead !== length) decline('the file ended early');
    return buffer;
  }
}

/**
 * What `read` makes of the file at `filePath`, or undefined when it declines or fails in any other way (the file
 * cannot be opened or read, or the reader trips on it): a header reader's answer is only ever a shortcut past
 * ffprobe, so no error of its own reaches the caller. The file is closed in every case.
 */
export async function readHeaderFile<T>(
  filePath: string,
  read: (file: HeaderFile) => Promise<T>,
): Promise<T | undefined> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(filePath, 'r');
    return await read(new HeaderFile(handle, (await handle.stat()).size));
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}

/**
 * A stream as a header reader starts it: the reader sets what headers say (frame size, sample rate, channels,
 * duration); the codec, bit depth, frame count and tags, which no header reader reads, stay unknown.
 */
export function headerStream(index: number, type: string): MediaStream {
  return {
    index,
    type,
    codec: undefined,
    width: undefined,
    height: undefined,
    sampleRate: undefined,
    channels: undefined,
    bitsPerRawSample: undefined,
    durationSec: undefined,
    frameCount: undefined,
    attachedPicture: false,
    tags: {},
  };
}
