/**
 * GraphQL multipart uploads (https://github.com/jaydenseric/graphql-multipart-request-spec).
 *
 * Yoga's own multipart parsing (Fetch API `formData()`) holds every file in memory, so it is off.
 * Multipart requests are read by the HTTP surfaces' one multipart reader (../multipart.ts) and
 * mapped onto the operations the spec's way, with graphql-upload-ts's pieces: its `Upload`
 * (what the `Upload` scalar resolves) and its fs-capacitor `WriteStream`, which buffers each file
 * in a temporary file under DATA_DIR/tmp (apps/shared/temp-dir.ts) so resolvers can read files in
 * any order while the body is still arriving. (graphql-upload-ts's own `processRequest` writes
 * those files to os.tmpdir() and cannot be told otherwise.) Every file is then staged with the
 * same UploadService call as REST and tRPC (`stageForm`), under the caller's plan.
 *
 * The caller is authenticated by the transport's hook (../auth.ts) before a byte of the body is
 * read, so the plan's size limit bounds the parser. The file count comes from `map` before the
 * query runs, so it is bounded by the most any mutation takes (maxFilesPerRequest); each mutation
 * then checks its plan gate and its own count (stageUploads) before reading a file.
 *
 * A body that fails (cut off, malformed, over a limit) fails the whole request: no mutation
 * accepts its files (staging waits for the body's end), the answer is that error with its HTTP
 * status (see `multipartFailure`), and every temporary file and partial blob is deleted.
 * Temporary files are released when the answer is sent or the client goes away.
 */
import { pipeline } from 'node:stream/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GRAPHQL_MULTIPART_REQUEST_SPEC_URL, Upload, WriteStream, type FileUpload } from 'graphql-upload-ts';
import type { GraphQLParams, Plugin } from 'graphql-yoga';
import { ServiceError, badRequest } from '../../../core/services/errors.js';
import type { Principal, Services } from '../../../core/services/index.js';
import type { FormPart, StagedUpload } from '../../../core/services/uploads.js';
import { principalOf } from '../auth.js';
import { multipartParts } from '../multipart.js';
import { requestError } from './errors.js';

export interface ServerContext {
  req: FastifyRequest;
  reply: FastifyReply;
}

/** `operations` and `map` are small JSON documents. */
const MAX_OPERATIONS_BYTES = 64 * 1024;

const noop = () => {};

/**
 * A bound on the files any mutation takes from this caller: a merge, a batch of the plan's size,
 * or the largest extraction request (each mutation applies its own, plan-dependent, limit).
 */
function maxFilesPerRequest(services: Services, principal: Principal): number {
  return Math.max(
    services.jobs.maxMergeFiles(),
    services.accounts.limitsOf(principal.account).plan.maxBatchFiles,
    services.capabilities.maxExtractionFiles(),
  );
}

/** The body each file came in: settles when that body was read to its end (rejects with its failure). */
const bodyOfFile = new WeakMap<FileUpload, Promise<void>>();
/** The failure of a request's multipart body, once known. */
const bodyFailures = new WeakMap<FastifyRequest, ServiceError>();

/** Why a request's multipart body failed, if it did: the whole request is answered with it. */
export function multipartFailure(request: FastifyRequest): ServiceError | undefined {
  return bodyFailures.get(request);
}

const specError = (message: string) => badRequest(`${message} (${GRAPHQL_MULTIPART_REQUEST_SPEC_URL})`);

function parseJsonField(part: FormPart | undefined, name: 'operations' | 'map'): unknown {
  if (part?.type !== 'field' || part.field !== name) {
    throw specError(
      name === 'operations'
        ? "Missing multipart field 'operations' (it comes first)"
        : "Missing multipart field 'map' (it follows 'operations')",
    );
  }
  try {
    return JSON.parse(part.value);
  } catch {
    throw specError(`Invalid JSON in the '${name}' multipart field`);
  }
}

const UNSAFE_KEYS = new Set(['__proto__', 'prototype', 'constructor']);

/**
 * Put `upload` at `path` (e.g. "variables.files.0", "1.variables.file") of the operations, where the client left null.
 */
function placeUpload(operations: unknown, path: string, upload: Upload): void {
  const keys = path.split('.');
  let node: unknown = operations;
  for (const [index, key] of keys.entries()) {
    if (typeof node !== 'object' || node === null || UNSAFE_KEYS.has(key) || !Object.hasOwn(node, key)) break;
    if (index === keys.length - 1) {
      if ((node as Record<string, unknown>)[key] !== null) break;
      (node as Record<string, unknown>)[key] = upload;
      return;
    }
    node = (node as Record<string, unknown>)[key];
  }
  throw specError(`Invalid object path '${path}' in the 'map' multipart field`);
}

/**
 * Read a GraphQL multipart request up to its operations (resolved as soon as `operations` and
 * `map` are read); the files keep arriving afterwards, each into its temporary file.
 */
async function readOperations(
  request: FastifyRequest,
  reply: FastifyReply,
  {
    maxFileBytes,
    maxFiles,
    tmpDir,
    idleMs,
  }: { maxFileBytes: number; maxFiles: number; tmpDir: string; idleMs: number },
): Promise<GraphQLParams | GraphQLParams[]> {
  const stop = new AbortController();
  const capacitors: WriteStream[] = [];
  // The answer is sent (or the client is gone): stop reading, and let every temporary file go
  // as soon as nothing reads it (graphql-upload-ts's release()).
  reply.raw.once('close', () => {
    stop.abort();
    for (const capacitor of capacitors) capacitor.release();
  });
  const parts = multipartParts(request, {
    maxFileBytes,
    maxFiles,
    maxFields: 2,
    maxFieldBytes: MAX_OPERATIONS_BYTES,
    signal: stop.signal,
    idleMs,
  })[Symbol.asyncIterator]();
  const next = async () => {
    const { value, done } = await parts.next();
    return done ? undefined : value;
  };

  let uploads = new Map<string, Upload>();
  let settle!: { resolve: () => void; reject: (error: ServiceError) => void };
  const body = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  body.catch(noop); // Awaited by the resolvers that stage a file; nobody else must be told.
  const fail = (error: unknown) => {
    const failure = error instanceof ServiceError ? error : badRequest('The upload failed');
    bodyFailures.set(request, failure);
    for (const upload of uploads.values()) if (!upload.file) upload.reject(failure);
    for (const capacitor of capacitors) capacitor.destroy(failure);
    settle.reject(failure);
    // Stop the reader (it unpipes the request; the answer closes the connection).
    void parts.return?.(undefined);
    return failure;
  };

  try {
    const operations = parseJsonField(await next(), 'operations');
    if (typeof operations !== 'object' || operations === null)
      throw specError("Invalid type for the 'operations' multipart field");
    const map = parseJsonField(await next(), 'map');
    if (typeof map !== 'object' || map === null || Array.isArray(map))
      throw specError("Invalid type for the 'map' multipart field");
    const entries = Object.entries(map);
    if (entries.length > maxFiles) throw badRequest(`At most ${maxFiles} files per request`);
    for (const [field, paths] of entries) {
      if (!Array.isArray(paths) || paths.some((path) => typeof path !== 'string'))
        throw specError(`Invalid paths for the file '${field}' in the 'map' multipart field`);
      const upload = new Upload();
      uploads.set(field, upload);
      for (const path of paths as string[]) placeUpload(operations, path, upload);
    }
    void readFiles();
    return operations as GraphQLParams | GraphQLParams[];
  } catch (error) {
    uploads = new Map();
    throw fail(error);
  }

  async function readFiles() {
    try {
      for (let part = await next(); part; part = await next()) {
        if (part.type !== 'file') continue;
        const upload = uploads.get(part.field);
        if (upload?.file) throw badRequest(`File '${part.field}' is sent twice`);
        if (!upload) {
          // A file no path asks for is left unread, as the spec's reference implementation does.
          part.stream.resume();
          continue;
        }
        const capacitor = new WriteStream({ tmpdir: () => tmpDir });
        capacitor.on('error', noop);
        capacitors.push(capacitor);
        const file: FileUpload = {
          filename: part.filename,
          fieldName: part.field,
          mimetype: 'application/octet-stream',
          encoding: '7bit',
          capacitor,
          createReadStream: (options) => capacitor.createReadStream(options),
        };
        bodyOfFile.set(file, body);
        upload.resolve(file);
        // A failing part destroys its temporary file (and the readers of it) with the failure.
        await pipeline(part.stream, capacitor);
      }
      for (const upload of uploads.values()) if (!upload.file) upload.reject(badRequest('File missing in the request'));
      settle.resolve();
    } catch (error) {
      fail(error);
    }
  }
}

/** Reads multipart GraphQL requests (after the transport's authentication, see auth.ts). */
export function useUploads(services: Services, tmpDir: string): Plugin<object, ServerContext> {
  return {
    onRequestParse({ request, serverContext, setRequestParser }) {
      const { req, reply } = serverContext;
      const multipart = request.headers.get('content-type')?.toLowerCase().startsWith('multipart/form-data') ?? false;
      // A request without any credentials may still sign in or ask `me` (JSON only: files need a key).
      if (req.anonymous && !multipart) return;
      let principal: Principal;
      try {
        principal = principalOf(req);
      } catch (error) {
        throw error instanceof ServiceError ? requestError(error) : error;
      }
      if (!multipart) return;
      const limits = {
        maxFileBytes: services.uploads.maxFileBytes(principal),
        maxFiles: maxFilesPerRequest(services, principal),
        tmpDir,
        idleMs: services.uploads.bodyIdleMs(),
      };
      setRequestParser(async () => {
        try {
          return await readOperations(req, reply, limits);
        } catch (error) {
          throw error instanceof ServiceError ? requestError(error) : error;
        }
      });
    },
  };
}

/** The open streams of uploads, as the parts of one form (for UploadService.stageForm). */
async function* uploadParts(files: Array<Promise<FileUpload>>, field: string): AsyncGenerator<FormPart> {
  for (const pending of files) {
    const file = await pending;
    let stream: ReturnType<FileUpload['createReadStream']>;
    try {
      stream = file.createReadStream();
    } catch {
      // Its temporary file is gone: the body failed (and says why) or the request ended.
      await bodyOfFile.get(file);
      throw badRequest('The request ended before its files were read');
    }
    yield { type: 'file', field, filename: file.filename, stream };
  }
}

/**
 * Stage a mutation's uploads under the caller's plan, in the order sent (one UploadService call),
 * after checking their count against the mutation's own limit so nothing past it is read
 * (`tooMany`: the service's own refusal, if it has one). They are returned once the request's
 * body was read to its end: a body that fails after them fails the mutation, and nothing is kept.
 */
export async function stageUploads(
  services: Services,
  principal: Principal,
  files: Array<Promise<FileUpload>>,
  maxFiles: number,
  tooMany?: () => ServiceError,
): Promise<StagedUpload[]> {
  if (files.length === 0) throw badRequest("Missing 'files': attach the files");
  if (files.length > maxFiles) throw tooMany ? tooMany() : badRequest(`At most ${maxFiles} files per request`);
  const form = await services.uploads.stageForm(principal, uploadParts(files, 'files'), {
    maxFiles,
    ...(tooMany ? { tooMany } : {}),
  });
  try {
    await Promise.all((await Promise.all(files)).map((file) => bodyOfFile.get(file)));
  } catch (error) {
    await services.uploads.discard(...form.files);
    throw error;
  }
  return form.files;
}

/** Stage one `Upload` argument (see stageUploads). */
export async function stageUpload(
  services: Services,
  principal: Principal,
  file: Promise<FileUpload>,
): Promise<StagedUpload> {
  const [upload] = await stageUploads(services, principal, [file], 1);
  return upload!;
}
