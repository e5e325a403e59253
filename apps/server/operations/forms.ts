/**
 * What the file-taking operations share on REST beside their form (submission.ts decodes it): the
 * `export` field checked before acceptance, `Prefer: wait=N`, and download headers.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AcceptedJob } from '../../../schema/index.js';
import type { ExportTarget } from '../../../core/services/exports.js';
import type { Services } from '../../../core/services/index.js';
import type { StagedUpload } from '../../../core/services/uploads.js';
import { principalOf } from '../auth.js';

/**
 * The `export` field checked before the job is accepted (400 first, nothing charged); the staged files go on a refusal.
 */
export async function checkExport(
  services: Services,
  raw: unknown,
  staged: StagedUpload[],
): Promise<ExportTarget | undefined> {
  if (raw === undefined) return undefined;
  try {
    return await services.exports.check(raw);
  } catch (err) {
    await services.uploads.discard(...staged);
    throw err;
  }
}

/** The longest `Prefer: wait=N` honoured, in seconds. */
export const MAX_PREFER_WAIT_S = 60;

/** N of an RFC 7240 `Prefer: wait=N` header (at most 60), or undefined. */
export function preferredWait(header: string | string[] | undefined): number | undefined {
  const text = Array.isArray(header) ? header.join(',') : header;
  const match = text ? /(?:^|[\s,;])wait\s*=\s*"?(\d{1,6})"?/i.exec(text) : null;
  return match ? Math.min(MAX_PREFER_WAIT_S, Number(match[1])) : undefined;
}

/**
 * The accepted answer, or with `Prefer: wait=N` the accepted fields plus the final status when
 * the job finishes within N seconds (`Preference-Applied: wait=N` either way: the server waited).
 */
export async function acceptedOrFinished(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  accepted: AcceptedJob,
) {
  const wait = preferredWait(request.headers.prefer);
  if (wait === undefined) return accepted;
  reply.header('Preference-Applied', `wait=${wait}`);
  const final = wait > 0 ? await services.jobs.waitFor(principalOf(request), accepted.jobId, wait * 1000) : undefined;
  return final ? { ...accepted, ...final } : accepted;
}

/** RFC 6266: an ASCII fallback name and the UTF-8 one. */
export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}
