/**
 * Uploads: streamed into the blob store under the plan's size limit while the first bytes are
 * kept for magic-byte sniffing; the declared type (file name) is then checked against content.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { fileTypeFromBuffer } from 'file-type';
import { FORMATS, formatFromFilename, isFormatId, type FormatId } from '../../schema/index.js';
import { BlobTooLargeError, type BlobStore } from '../blobs/types.js';
import { ServiceError, badRequest } from './errors.js';
import { checkContent } from './sniff.js';

/** An upload already in the blob store, not yet validated against an operation. */
export interface StagedUpload {
  blobKey: string;
  filename: string;
  bytes: number;
  head: Buffer;
}

const HEAD_BYTES = 64 * 1024;
const MB = 1_000_000;

/** A client file name reduced to a safe base name (no paths, no control or shell characters). */
export function safeFilename(name: string): string {
  const base = path.basename(name.replace(/\\/g, '/')).normalize('NFC');
  const cleaned = base.replace(/[^\p{L}\p{N}._ -]+/gu, '_').replace(/^[.\s]+/, '').slice(-120).trim();
  return cleaned || 'file';
}

/** Output name: the input's base name with the output format's extension. */
export function outputFilename(inputName: string, output: FormatId): string {
  const base = safeFilename(inputName);
  const dot = base.lastIndexOf('.');
  return `${dot > 0 ? base.slice(0, dot) : base}.${FORMATS[output].extension}`;
}

function describeSize(bytes: number): string {
  return bytes >= 1000 * MB ? `${bytes / (1000 * MB)} GB` : `${bytes / MB} MB`;
}

export class UploadService {
  constructor(private readonly blobs: BlobStore) {}

  /** Stream one file into staging; 413 past `maxBytes` (the partial blob is deleted). */
  async stage(file: { filename: string; stream: Readable }, maxBytes: number): Promise<StagedUpload> {
    const blobKey = `uploads/${randomUUID()}`;
    const chunks: Buffer[] = [];
    let headLength = 0;
    // Keeps the first bytes for sniffing while passing everything through to the blob store.
    const headTap = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        if (headLength < HEAD_BYTES) {
          chunks.push(chunk.subarray(0, HEAD_BYTES - headLength));
          headLength += Math.min(chunk.length, HEAD_BYTES - headLength);
        }
        done(null, chunk);
      },
    });
    file.stream.on('error', (err) => headTap.destroy(err));
    try {
      const { bytes } = await this.blobs.write(blobKey, file.stream.pipe(headTap), { maxBytes });
      return { blobKey, filename: safeFilename(file.filename), bytes, head: Buffer.concat(chunks) };
    } catch (err) {
      await this.blobs.delete(blobKey);
      if (err instanceof BlobTooLargeError) {
        throw new ServiceError('PAYLOAD_TOO_LARGE', `File exceeds the plan's limit of ${describeSize(maxBytes)}`);
      }
      throw err;
    }
  }

  async discard(...uploads: StagedUpload[]): Promise<void> {
    await Promise.all(uploads.map((u) => this.blobs.delete(u.blobKey)));
  }

  /**
   * The upload's format: declared by its file name, confirmed by its content. Never trusts the
   * name alone: PNG bytes named .jpg are refused.
   */
  async identify(upload: StagedUpload): Promise<FormatId> {
    if (upload.bytes === 0) throw badRequest(`${upload.filename} is empty`);
    const declared = formatFromFilename(upload.filename);
    const detected = await fileTypeFromBuffer(upload.head);
    if (!declared) {
      const ext = path.extname(upload.filename);
      if (ext) throw badRequest(`Unsupported format: ${ext.slice(1).toLowerCase()}`);
      if (detected && isFormatId(detected.ext)) return detected.ext;
      throw badRequest(`Cannot tell the format of ${upload.filename}: give the file name its extension`);
    }
    const verdict = checkContent(declared, upload.head, detected?.ext);
    if (!verdict.ok) {
      throw badRequest(`Content does not match its declared type: ${upload.filename} is named .${declared} but contains ${verdict.found}`);
    }
    return declared;
  }
}
