/**
 * The one multipart reader of the HTTP surfaces. REST and tRPC stage what it reads with one
 * UploadService call (`stageMultipart`); GraphQL's multipart request spec reads its parts from it
 * too (graphql/uploads.ts). Files are never buffered: each part's stream goes wherever the
 * consumer pipes it (the blob store), at the pace the consumer reads.
 *
 * Every failure has one path. The parser (busboy), each file stream and the request itself are
 * listened to from the moment they exist; whatever goes wrong (a body cut off mid-file or
 * mid-header, no closing boundary, a garbage boundary, a nameless part, the client gone, a file
 * over the plan's limit) becomes one ServiceError that
 * - destroys the file stream being read, so the consumer's pipe rejects with it (and the
 *   UploadService deletes the partial blob), and
 * - is thrown by the iteration, which then stops reading the body.
 * No 'error' event is ever left without a listener, so a malformed body cannot take the process down.
 */
import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { Busboy, type BusboyFileStream, type BusboyInstance } from '@fastify/busboy';
import type { FastifyRequest } from 'fastify';
import { type ServiceError, badRequest } from '../../core/services/errors.js';
import type { Principal } from '../../core/services/index.js';
import {
  fileTooLarge,
  type FormPart,
  type FormRules,
  type StagedForm,
  type UploadService,
} from '../../core/services/uploads.js';
import { BodyIdleError, watchIdleBody } from './body-idle.js';

/** A text field's value (form fields are short: options, `to`, GraphQL's operations and map). */
export const MAX_FIELD_BYTES = 64 * 1024;
/** Text fields a form may carry beside its files. */
export const MAX_FIELDS = 64;

export interface MultipartLimits {
  /** Bytes of one file; the parser stops one byte past it (413). */
  maxFileBytes: number;
  /** Files the body may carry; the parser reads one more, so the consumer can refuse it by name. */
  maxFiles: number;
  maxFields?: number;
  maxFieldBytes?: number;
  /** Stops reading (the iteration throws, the file being read is destroyed). */
  signal?: AbortSignal;
  /**
   * The longest the body may send nothing while it is read (UPLOAD_IDLE_S): then it fails with a 408 and the file
   * being read is destroyed. Time the reader itself holds the body back (the blob store not keeping up) is not the
   * client's and does not count.
   */
  idleMs?: number;
}

const noop = () => {};

export const isMultipart = (request: FastifyRequest) =>
  /^multipart\/form-data\b/i.test(request.headers['content-type'] ?? '');

const malformed = (reason: string) => badRequest(`Malformed multipart body: ${reason}`);

/**
 * The parts of a multipart request, one at a time. A file part's stream must be read (or left:
 * it is drained when the next part is asked for) before the next part comes. Reading starts at the
 * first `next()`, so limits and plan gates checked before iterating cost no byte of the body.
 */
export function multipartParts(request: FastifyRequest, limits: MultipartLimits): AsyncIterable<FormPart> {
  return { [Symbol.asyncIterator]: () => readParts(request.raw, limits) };
}

async function* readParts(raw: IncomingMessage, limits: MultipartLimits): AsyncGenerator<FormPart> {
  const maxFields = limits.maxFields ?? MAX_FIELDS;
  let parser: BusboyInstance;
  try {
    parser = Busboy({
      headers: raw.headers as { 'content-type': string },
      limits: {
        fileSize: limits.maxFileBytes + 1,
        files: limits.maxFiles + 1,
        fields: maxFields,
        parts: limits.maxFiles + 1 + maxFields,
        fieldSize: limits.maxFieldBytes ?? MAX_FIELD_BYTES,
        headerPairs: 100,
      },
    });
  } catch (error) {
    throw malformed((error as Error).message);
  }

  const queue: FormPart[] = [];
  const open = new Set<PassThrough>();
  let failure: ServiceError | undefined;
  let finished = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  const fail = (error: ServiceError) => {
    if (failure) return;
    failure = error;
    for (const stream of open) stream.destroy(error);
    open.clear();
    notify();
  };

  parser.on('file', (field: string | undefined, stream: BusboyFileStream, filename: string | undefined) => {
    // Busboy emits its errors on the file stream itself (and keeps feeding it); the consumer reads
    // a stream of ours instead, which only ever fails with the reader's verdict.
    stream.on('error', (error: Error) => fail(malformed(error.message)));
    if (failure) return void stream.resume();
    if (!field) {
      stream.resume();
      return fail(malformed('a part has no name'));
    }
    const body = new PassThrough();
    body.on('error', noop);
    open.add(body);
    body.once('end', () => open.delete(body));
    stream.once('limit', () => fail(fileTooLarge(limits.maxFileBytes)));
    stream.pipe(body);
    queue.push({ type: 'file', field, filename: filename || 'file', stream: body });
    notify();
  });
  parser.on('field', (field: string | undefined, value: string, _nameTruncated: boolean, valueTruncated: boolean) => {
    if (failure) return;
    if (!field) return fail(malformed('a part has no name'));
    if (valueTruncated) return fail(badRequest(`Field '${field}' is too long`));
    queue.push({ type: 'field', field, value });
    notify();
  });
  parser.on('partsLimit', () => fail(malformed('too many parts')));
  parser.on('fieldsLimit', () => fail(badRequest(`At most ${maxFields} text fields per request`)));
  parser.on('filesLimit', () => fail(badRequest(`At most ${limits.maxFiles} files per request`)));
  // Busboy may report one failure more than once (a bad header, then the early end): `fail` keeps the first.
  parser.on('error', (error: Error) => fail(malformed(error.message)));
  parser.on('finish', () => {
    finished = true;
    notify();
  });
  // A body that stops before its end (the client went away): busboy never hears of it.
  const onClose = () => {
    if (!raw.complete) fail(malformed('the request ended before the multipart body was complete'));
  };
  raw.on('error', noop);
  raw.once('close', onClose);
  // A client gone before the route reached its body (behind a slow check) closed the request
  // already: that 'close' was missed, and a destroyed request delivers no more bytes.
  if (raw.destroyed) fail(malformed('the request ended before the multipart body was read'));
  const onAbort = () => fail(badRequest('The request was cancelled'));
  limits.signal?.addEventListener('abort', onAbort, { once: true });

  raw.pipe(parser);
  const stopIdleWatch = limits.idleMs
    ? watchIdleBody(raw, limits.idleMs, () => fail(new BodyIdleError(limits.idleMs!, 'upload')))
    : noop;
  try {
    for (;;) {
      if (failure) throw failure;
      const part = queue.shift();
      if (part) {
        yield part;
        // A file the consumer left unread would stall the parser.
        if (part.type === 'file' && !part.stream.readableEnded && !part.stream.destroyed) part.stream.resume();
        continue;
      }
      if (finished) return;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    stopIdleWatch();
    limits.signal?.removeEventListener('abort', onAbort);
    raw.off('close', onClose);
    if (!finished) {
      // Stop reading: once the answer is sent, the rest is drained or the connection closed (app.ts).
      raw.unpipe(parser);
      for (const stream of open) stream.destroy(failure);
      parser.on('error', noop);
    }
  }
}

/**
 * REST and tRPC: read a multipart request and stage its files under the caller's plan, with one
 * UploadService call. The body must be multipart; the rules are the operation's.
 */
export async function stageMultipart(
  request: FastifyRequest,
  uploads: UploadService,
  principal: Principal,
  rules: FormRules,
): Promise<StagedForm> {
  if (!isMultipart(request)) throw badRequest('Send the request as multipart/form-data');
  const parts = multipartParts(request, {
    maxFileBytes: uploads.maxFileBytes(principal),
    maxFiles: rules.maxFiles,
    idleMs: uploads.bodyIdleMs(),
  });
  return uploads.stageForm(principal, parts, rules);
}
