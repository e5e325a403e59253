/**
 * Multipart bodies for tRPC's FormData input, without holding files in memory.
 *
 * tRPC reads FormData input with the Fetch API's `request.formData()`, which buffers every file in
 * memory (up to the plan's 5 GB). Instead, the adapter answers `formData()` with this: busboy
 * (via @fastify/multipart) streams each file to a spool file under the plan's size limit, and
 * the FormData holds disk-backed `File`s (fs.openAsBlob), which the procedure streams on into
 * the blob store. Spool files go when the response is finished.
 */
import { createWriteStream, openAsBlob } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError, badRequest } from '../../../core/services/errors.js';

const MAX_FIELD_BYTES = 64 * 1024;
/** Text fields a form may carry beside its files. */
const MAX_FIELDS = 64;

export async function spoolFormData(
  request: FastifyRequest,
  reply: FastifyReply,
  { dir, maxFileBytes, maxFiles, tooMany }: { dir: string; maxFileBytes: number; maxFiles: number; tooMany?: () => ServiceError },
): Promise<FormData> {
  await mkdir(dir, { recursive: true });
  const spool = await mkdtemp(path.join(dir, 'trpc-'));
  reply.raw.once('close', () => void rm(spool, { recursive: true, force: true }));
  const form = new FormData();
  try {
    let files = 0;
    // One byte past the limit lets the blob store's own counter answer 413.
    for await (const part of request.parts({ limits: { fileSize: maxFileBytes + 1, fieldSize: MAX_FIELD_BYTES, files: maxFiles + 1, parts: maxFiles + MAX_FIELDS } })) {
      if (part.type === 'file') {
        if (files >= maxFiles) {
          part.file.resume();
          throw tooMany ? tooMany() : badRequest(maxFiles === 1 ? "Send exactly one 'file'" : `At most ${maxFiles} files per request`);
        }
        const target = path.join(spool, String(files++));
        await pipeline(part.file, createWriteStream(target));
        form.append(part.fieldname, new File([await openAsBlob(target)], part.filename || 'file'));
      } else {
        if (part.valueTruncated) throw badRequest(`Field '${part.fieldname}' is too long`);
        form.append(part.fieldname, String(part.value ?? ''));
      }
    }
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw new ServiceError('PAYLOAD_TOO_LARGE', "File exceeds the plan's size limit");
    if (code?.startsWith('FST_')) throw badRequest(`Malformed multipart body: ${(error as Error).message}`);
    throw error;
  }
  return form;
}
