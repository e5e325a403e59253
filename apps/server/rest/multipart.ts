/**
 * Streaming multipart intake for the REST surface: file parts go straight to the blob store
 * (never buffered), text fields are collected. Part order does not matter: fields may follow files.
 */
import type { FastifyRequest } from 'fastify';
import { ServiceError, badRequest } from '../../../core/services/errors.js';
import type { StagedUpload, UploadService } from '../../../core/services/uploads.js';

export interface MultipartForm {
  files: StagedUpload[];
  fields: Record<string, string>;
}

const MAX_FIELD_BYTES = 64 * 1024;

export async function readMultipart(
  request: FastifyRequest,
  uploads: UploadService,
  { fileField, maxFiles, maxFileBytes, tooMany }: {
    fileField: string; maxFiles: number; maxFileBytes: number;
    /** The error for one file too many (default: a 400 naming the limit). */
    tooMany?: () => ServiceError;
  },
): Promise<MultipartForm> {
  if (!request.isMultipart()) throw badRequest('Send the request as multipart/form-data');
  const form: MultipartForm = { files: [], fields: {} };
  try {
    // busboy stops one byte past the limit, which the blob store's own counter turns into 413.
    const parts = request.parts({ limits: { fileSize: maxFileBytes + 1, fieldSize: MAX_FIELD_BYTES, files: maxFiles + 1, parts: maxFiles + 64 } });
    for await (const part of parts) {
      if (part.type === 'file') {
        if (part.fieldname !== fileField) {
          part.file.resume();
          throw badRequest(`Unexpected file field '${part.fieldname}': send the file as '${fileField}'`);
        }
        if (form.files.length >= maxFiles) {
          part.file.resume();
          throw tooMany?.() ?? badRequest(maxFiles === 1 ? `Send exactly one '${fileField}'` : `At most ${maxFiles} files per request`);
        }
        form.files.push(await uploads.stage({ filename: part.filename || 'file', stream: part.file }, maxFileBytes));
      } else {
        if (part.fieldnameTruncated || part.valueTruncated) throw badRequest(`Field '${part.fieldname}' is too long`);
        if (Object.hasOwn(form.fields, part.fieldname)) throw badRequest(`Field '${part.fieldname}' is sent twice`);
        form.fields[part.fieldname] = String(part.value ?? '');
      }
    }
  } catch (err) {
    await uploads.discard(...form.files);
    if (err instanceof ServiceError) throw err;
    const code = (err as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw new ServiceError('PAYLOAD_TOO_LARGE', 'File exceeds the plan limit');
    if (code?.startsWith('FST_') || (err as Error).message?.includes('Multipart')) throw badRequest(`Malformed multipart body: ${(err as Error).message}`);
    throw err;
  }
  if (form.files.length === 0) throw badRequest(`Missing '${fileField}': attach the file to convert`);
  return form;
}
