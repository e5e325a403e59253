/**
 * Who is calling, and GraphQL multipart uploads.
 *
 * Yoga's own multipart parsing (Fetch API `formData()`) holds every file in memory, so it is
 * turned off and graphql-upload-ts parses multipart requests instead: its `processRequest`
 * reads the raw Node request with busboy and resolves as soon as `operations` and `map` are
 * read, while each file keeps streaming (through fs-capacitor's temporary file, never memory)
 * into the blob store via services.uploads.stage. The key is checked first, so the plan's size
 * limit is known before a byte of the file is read, and an unauthenticated upload is never read.
 *
 * The parser reads the file count from `map` before the query is executed, so it can only bound
 * it by the most any mutation takes (maxFilesPerRequest); each mutation then checks its plan gate
 * and its own count (stageUploads) before reading a file.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { processRequest, type FileUpload } from 'graphql-upload-ts';
import type { Plugin } from 'graphql-yoga';
import { ServiceError, badRequest } from '../../../core/services/errors.js';
import type { Principal, Services } from '../../../core/services/index.js';
import type { StagedUpload } from '../../../core/services/uploads.js';
import { setRateHeaders } from '../rest/routes.js';
import { requestError } from './errors.js';

export interface ServerContext {
  req: FastifyRequest;
  reply: FastifyReply;
}

/** `operations` and `map` are small JSON documents. */
const MAX_OPERATIONS_BYTES = 64 * 1024;

/**
 * A bound on the files any mutation takes from this caller: a merge, a batch of the plan's size,
 * or the largest extraction request (each mutation applies its own, plan-dependent, limit).
 */
function maxFilesPerRequest(services: Services, principal: Principal): number {
  return Math.max(services.jobs.maxMergeFiles(), services.accounts.limitsOf(principal.account).plan.maxBatchFiles, services.capabilities.maxExtractionFiles());
}

const principals = new WeakMap<Request, Principal>();

export function principalOf(request: Request): Principal {
  const principal = principals.get(request);
  if (!principal) throw new Error('GraphQL request parsed without authentication');
  return principal;
}

/** Errors of the multipart parser (http-errors) in the services' terms. */
function asServiceError(error: unknown, maxFiles?: number): unknown {
  const status = (error as { status?: unknown }).status;
  if (typeof status !== 'number' || error instanceof ServiceError) return error;
  // The parser answers 413 for too many files too; REST calls that a bad request.
  if (status === 413 && maxFiles !== undefined && /max file uploads exceeded/.test((error as Error).message)) return badRequest(`At most ${maxFiles} files per request`);
  if (status === 413) return new ServiceError('PAYLOAD_TOO_LARGE', "File exceeds the plan's size limit");
  if (status >= 400 && status < 499) return badRequest((error as Error).message);
  return error;
}

/** Authenticates every GraphQL request (bearer key + rate limit) and parses multipart ones. */
export function useApiKeyAndUploads(services: Services): Plugin<object, ServerContext> {
  return {
    async onRequestParse({ request, serverContext, setRequestParser }) {
      let principal: Principal;
      try {
        principal = await services.accounts.authenticate(request.headers.get('authorization') ?? undefined);
        setRateHeaders(serverContext.reply, await services.rateLimits.hit(principal));
      } catch (error) {
        throw error instanceof ServiceError ? requestError(error) : error;
      }
      principals.set(request, principal);
      if (!request.headers.get('content-type')?.toLowerCase().startsWith('multipart/form-data')) return;
      const { maxFileBytes } = services.accounts.limitsOf(principal.account);
      const maxFiles = maxFilesPerRequest(services, principal);
      const { raw: body } = serverContext.req;
      // Files still unread when the answer is sent (a plan gate refused, say) are never needed:
      // stop parsing, or later files would land in temporary files nobody releases, and drain.
      serverContext.reply.raw.once('close', () => {
        if (body.readableEnded) return;
        body.unpipe();
        body.resume();
      });
      setRequestParser(async () => {
        try {
          // One byte past the limit lets the blob store's own counter answer 413.
          return await processRequest(body, serverContext.reply.raw, { maxFileSize: maxFileBytes + 1, maxFiles, maxFieldSize: MAX_OPERATIONS_BYTES });
        } catch (error) {
          const mapped = asServiceError(error, maxFiles);
          throw mapped instanceof ServiceError ? requestError(mapped) : mapped;
        }
      });
    },
  };
}

/** Stream an `Upload` argument into staging under the caller's plan limit. */
export async function stageUpload(services: Services, principal: Principal, file: Promise<FileUpload>): Promise<StagedUpload> {
  const { maxFileBytes } = services.accounts.limitsOf(principal.account);
  try {
    const upload = await file;
    return await services.uploads.stage({ filename: upload.filename, stream: upload.createReadStream() }, maxFileBytes);
  } catch (error) {
    throw asServiceError(error);
  }
}

/**
 * Stream a list of `Upload`s into staging, in the order sent, after checking their count against
 * the mutation's own limit so nothing past it is read (`tooMany`: the service's own refusal, if it
 * has one). On failure the files staged so far go.
 */
export async function stageUploads(
  services: Services, principal: Principal, files: Array<Promise<FileUpload>>, maxFiles: number, tooMany?: () => ServiceError,
): Promise<StagedUpload[]> {
  if (files.length === 0) throw badRequest("Missing 'files': attach the files");
  if (files.length > maxFiles) throw tooMany ? tooMany() : badRequest(`At most ${maxFiles} files per request`);
  const staged: StagedUpload[] = [];
  try {
    for (const file of files) staged.push(await stageUpload(services, principal, file));
  } catch (error) {
    await services.uploads.discard(...staged);
    throw error;
  }
  return staged;
}
