/**
 * Uploads: streamed into the blob store under the plan's size limit while the first bytes are
 * kept for magic-byte sniffing; the declared type (file name) is then checked against content.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Transform, pipeline, type Readable } from 'node:stream';
import { fileTypeFromBuffer } from 'file-type';
import { FORMATS, formatFromFilename, isFormatId, type FormatId } from '../../schema/index.js';
import { BlobTooLargeError, type BlobStore } from '../blobs/types.js';
import { accountLimits, type Principal } from './accounts.js';
import { ServiceError, badRequest } from './errors.js';
import { checkContent } from '../contract/sniff.js';
import { recordUploadBytes } from '../telemetry/metrics.js';
import type { UrlImporter } from './url-import.js';
import type { Plugin } from '../contract/index.js';
import type { ImportSource, StoredFile } from '../store/types.js';
import type { AcceptedMeasures } from './accepted-measures.js';
import { measureWorkAndFacts } from './work-limits.js';
import { removeFolder } from './folders.js';
import { DEFAULT_UPLOAD_IDLE_MS, DEFAULT_UPLOAD_MAX_MS, stagedUploadLimitMs } from './upload-time.js';

/** An upload already in the blob store, not yet validated against an operation. */
export interface StagedUpload {
  blobKey: string;
  filename: string;
  bytes: number;
  head: Buffer;
  /** A URL import accepted before its body is fetched: `bytes` is the declared size (0: unknown), `head` empty. */
  source?: ImportSource;
  /**
   * When its staging began (real time, ms), never later than the blob's own time: a job records it only while it is
   * younger than the staged-upload limit (upload-time.ts). Unset: no blob yet (a URL import).
   */
  stagedAt?: number;
}

/** A staged upload as a job's input (a pending import keeps its source for the runner). */
export function storedInput(upload: StagedUpload, format: FormatId): StoredFile {
  return {
    blobKey: upload.blobKey,
    filename: upload.filename,
    format,
    bytes: upload.bytes,
    ...(upload.source ? { source: upload.source } : {}),
  };
}

const HEAD_BYTES = 64 * 1024;
const MB = 1_000_000;

/** A client file name reduced to a safe base name (no paths, no control or shell characters). */
export function safeFilename(name: string): string {
  const base = path.basename(name.replace(/\\/g, '/')).normalize('NFC');
  const cleaned = base
    .replace(/[^\p{L}\p{N}._ -]+/gu, '_')
    .replace(/^[.\s]+/, '')
    .slice(-120)
    .trim();
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

/** The refusal of a file over the plan's limit (413), wherever the excess is noticed. */
export function fileTooLarge(maxBytes: number): ServiceError {
  return new ServiceError('PAYLOAD_TOO_LARGE', `File exceeds the plan's limit of ${describeSize(maxBytes)}`);
}

/** One part of a request's form, as the transport read it (multipart, GraphQL uploads, FormData). */
export type FormPart =
  | { type: 'file'; field: string; filename: string; stream: Readable }
  | { type: 'field'; field: string; value: string };

/** What a form may carry: the rules of the operation it is sent to. */
export interface FormRules {
  /** The only field that may carry files; omitted, files under any name are staged (the caller checks names). */
  fileField?: string;
  /** Files the operation takes (plan gate and operation limit already applied by the caller). */
  maxFiles: number;
  /** The operation's own refusal of one file too many (default: a 400 naming the limit). */
  tooMany?: () => ServiceError;
  /**
   * The text field that may carry URLs to import instead of files (`url` on convert, `urls`,
   * repeated, on the multi-file operations); each counts as one file. Omitted: no imports.
   */
  urlField?: string;
}

/** A form whose files are in staging: files in the order sent, text fields by name. */
export interface StagedForm {
  files: StagedUpload[];
  /** The field each file came in (same order as `files`). */
  fileFields: string[];
  fields: Record<string, string>;
}

export class UploadService {
  constructor(
    private readonly blobs: BlobStore,
    private readonly importer?: UrlImporter,
    /** Where what a measure read is kept for this process's runs (accepted-measures.ts). */
    private readonly acceptedMeasures?: AcceptedMeasures,
    /** How long a body may pause, and how old a staged file may be when its job is recorded (upload-time.ts). */
    private readonly timing: { idleMs: number; stagedLimitMs: number } = {
      idleMs: DEFAULT_UPLOAD_IDLE_MS,
      stagedLimitMs: stagedUploadLimitMs(DEFAULT_UPLOAD_MAX_MS),
    },
  ) {}

  /** The longest a request body may send nothing while it is read (UPLOAD_IDLE_S): the surfaces' readers end it. */
  bodyIdleMs(): number {
    return this.timing.idleMs;
  }

  /**
   * Called just before a job that holds these uploads is recorded: a file staged longer ago than the limit may
   * already be an orphan to the sweep of any process (retention.ts), so the request is refused (503, retry) and
   * the caller deletes its files. Only a request much slower than its body's deadline meets it (an overloaded
   * server measuring many files).
   */
  checkStagedInTime(uploads: ReadonlyArray<{ stagedAt?: number }>): void {
    const oldest = Math.min(...uploads.map((upload) => upload.stagedAt ?? Number.POSITIVE_INFINITY));
    if (Date.now() - oldest <= this.timing.stagedLimitMs) return;
    throw new ServiceError(
      'UNAVAILABLE',
      `The server took too long to accept this request (more than ${Math.round(this.timing.stagedLimitMs / 60_000)}` +
        ` minutes since its first file arrived); send it again`,
      // An overloaded server: worth a minute's rest before the files are sent again.
      { retryAfterSeconds: 60 },
    );
  }

  /** The caller's limit on one file: the one place a surface learns it (e.g. to bound its parser). */
  maxFileBytes(principal: Principal): number {
    return accountLimits(principal.account).maxFileBytes;
  }

  /**
   * Stage a request's form under the caller's plan limits: every file streams into the blob store
   * as it arrives, text fields are collected (each name once). The count is checked before a file
   * past it is read. On any failure (limits, a part the rules refuse, a source stream that fails)
   * the files staged so far are deleted and the error is thrown: nothing is left behind.
   */
  async stageForm(principal: Principal, parts: AsyncIterable<FormPart>, rules: FormRules): Promise<StagedForm> {
    const maxBytes = this.maxFileBytes(principal);
    const form: StagedForm = { files: [], fileFields: [], fields: {} };
    const urls: string[] = [];
    const tooMany = () =>
      rules.tooMany?.() ??
      badRequest(
        rules.maxFiles === 1
          ? `Send exactly one '${rules.fileField ?? 'file'}'${rules.urlField ? ` or '${rules.urlField}'` : ''}`
          : `At most ${rules.maxFiles} files per request`,
      );
    try {
      for await (const part of parts) {
        // Names that every object already answers to (constructor, __proto__, toString...) are never a field.
        if (part.field in Object.prototype) throw badRequest(`Field name '${part.field}' is not allowed`);
        if (part.type === 'field' && rules.urlField !== undefined && part.field === rules.urlField) {
          if (form.files.length + urls.length >= rules.maxFiles) throw tooMany();
          urls.push(part.value);
          continue;
        }
        if (part.type === 'field') {
          if (Object.hasOwn(form.fields, part.field)) throw badRequest(`Field '${part.field}' is sent twice`);
          form.fields[part.field] = part.value;
          continue;
        }
        if (rules.fileField !== undefined && part.field !== rules.fileField) {
          throw badRequest(`Unexpected file field '${part.field}': send the file as '${rules.fileField}'`);
        }
        if (form.files.length + urls.length >= rules.maxFiles) throw tooMany();
        form.files.push(await this.stage({ filename: part.filename, stream: part.stream }, maxBytes));
        form.fileFields.push(part.field);
      }
      if (urls.length) {
        // Every URL is checked before any is probed; the bodies are fetched by the job's runner.
        if (!this.importer) throw badRequest('Importing from a URL is not available on this server');
        for (const url of urls) this.importer.parse(url);
        for (const url of urls) {
          form.files.push(await this.probe(url, maxBytes));
          form.fileFields.push(rules.urlField!);
        }
      }
    } catch (error) {
      await this.discard(...form.files);
      throw error;
    }
    return form;
  }

  /**
   * Stream one file into staging; 413 past `maxBytes`. Every stream of the pipe has an error path
   * from the start, so a source that fails at any moment (a request cut off mid-file) rejects
   * here, never as an unhandled 'error' event; the partial blob is deleted. A source's
   * ServiceError (the transport's verdict on its own stream) is thrown as it is.
   */
  async stage(
    file: { filename: string; stream: Readable },
    maxBytes: number,
    blobKey = `uploads/${randomUUID()}`,
  ): Promise<StagedUpload> {
    const stagedAt = Date.now();
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
    // pipeline() listens for errors on both streams at once and destroys each with the other's
    // error; the blob store then reads headTap (an already failed headTap rejects its write).
    let sourceError: unknown;
    pipeline(file.stream, headTap, (error) => {
      if (error) sourceError ??= error;
    });
    try {
      const { bytes } = await this.blobs.write(blobKey, headTap, { maxBytes });
      recordUploadBytes(bytes);
      return { blobKey, filename: safeFilename(file.filename), bytes, head: Buffer.concat(chunks), stagedAt };
    } catch (err) {
      await this.blobs.delete(blobKey);
      if (err instanceof BlobTooLargeError) throw fileTooLarge(maxBytes);
      if (err instanceof ServiceError) throw err;
      if (sourceError instanceof ServiceError) throw sourceError;
      throw err;
    } finally {
      // A blob store that failed on its own (disk full) leaves the source unread: release it.
      if (!file.stream.destroyed && !file.stream.readableEnded) file.stream.destroy();
    }
  }

  /** One URL to import under the caller's plan limit (pipelines' input.url): see `probe`. */
  async importOne(principal: Principal, url: string): Promise<StagedUpload> {
    return this.probe(url, this.maxFileBytes(principal));
  }

  /**
   * A URL import as a staged upload whose body is not fetched yet (the job's runner fetches it:
   * `fetchInput`): checked now (400 for a refused URL, 413 for a declared size over `maxBytes`),
   * named by the server's headers or the URL, priced on the declared size (0 when none).
   */
  async probe(url: string, maxBytes: number): Promise<StagedUpload> {
    if (!this.importer) throw badRequest('Importing from a URL is not available on this server');
    const probed = await this.importer.probe(url, maxBytes, () => fileTooLarge(maxBytes));
    return {
      blobKey: `uploads/${randomUUID()}`,
      filename: safeFilename(probed.filename),
      bytes: probed.declaredBytes ?? 0,
      head: Buffer.alloc(0),
      source: { url: probed.url, maxBytes },
    };
  }

  /**
   * Fetch a job's pending URL import into its blob key (streaming, under the limit of its plan at
   * acceptance) and check its content against the format the job was accepted for. Returns the
   * input as fetched; a ServiceError (safe to show) when the fetch or the check fails.
   */
  async fetchInput(file: StoredFile, signal?: AbortSignal): Promise<StoredFile> {
    if (!file.source) return file;
    if (!this.importer) throw badRequest('Importing from a URL is not available on this server');
    const { url, maxBytes } = file.source;
    const opened = await this.importer.open(url, maxBytes, () => fileTooLarge(maxBytes), signal);
    const staged = await this.stage({ filename: file.filename, stream: opened.stream }, maxBytes, file.blobKey);
    const format = await this.identify(staged);
    if (format !== file.format) {
      await this.blobs.delete(staged.blobKey);
      throw badRequest(`${file.filename} was accepted as ${file.format}, but the server sent ${format}`);
    }
    return { blobKey: staged.blobKey, filename: file.filename, format, bytes: staged.bytes };
  }

  async discard(...uploads: StagedUpload[]): Promise<void> {
    await Promise.all(uploads.map((u) => this.blobs.delete(u.blobKey)));
  }

  /**
   * The work the plugin declares (pages, seconds, megapixels) in these staged files, measured on
   * a local copy when the blob store has no local file; undefined when it declares none. What the
   * measure read on the way is kept for a run of these files in this process (accepted-measures.ts).
   */
  async measureWork(
    plugin: Plugin,
    files: ReadonlyArray<{ upload: StagedUpload; format: FormatId }>,
  ): Promise<number | undefined> {
    // A URL import not fetched yet is measured by the runner once it is.
    const work = plugin.limits.work;
    if (!work || files.some(({ upload }) => upload.source)) return undefined;
    // Made only when something is written there: a measure's scratch files, or a copy of a blob kept elsewhere than on
    // this disk (localPath makes it then). A header read in this process costs no folder (half a millisecond of a
    // tiny image's job).
    const dir = path.join(os.tmpdir(), `transmute-measure-${randomUUID()}`);
    if (!work.readsOnly) await mkdir(dir, { mode: 0o700 });
    try {
      const inputs = await Promise.all(
        files.map(async ({ upload, format }) => ({
          path: await this.blobs.localPath(upload.blobKey, dir),
          format,
          filename: upload.filename,
          bytes: upload.bytes,
        })),
      );
      const { total, facts } = await measureWorkAndFacts(plugin, inputs, dir);
      const stored = files.map(({ upload, format }) => ({ blobKey: upload.blobKey, format }));
      this.acceptedMeasures?.put(plugin.id, stored, { measured: total, facts });
      return total;
    } finally {
      // A stat, not a removal attempt, when nothing made the folder: no round trip through libuv's pool.
      if (existsSync(dir)) await removeFolder(dir);
    }
  }

  /** An accepted job's input that will never be read (the job was cancelled before it ran). */
  async discardKey(blobKey: string): Promise<void> {
    await this.blobs.delete(blobKey);
  }

  /**
   * The upload's format: declared by its file name, confirmed by its content. Never trusts the
   * name alone: PNG bytes named .jpg are refused.
   */
  async identify(upload: StagedUpload): Promise<FormatId> {
    const declared = formatFromFilename(upload.filename);
    // A URL import not fetched yet: its name decides; the runner checks the content once it arrives.
    if (upload.source) {
      if (declared) return declared;
      throw badRequest(
        `Cannot tell the format of ${upload.filename}: the URL's path or Content-Disposition must name the file with ` +
          `its extension`,
      );
    }
    if (upload.bytes === 0) throw badRequest(`${upload.filename} is empty`);
    const detected = await fileTypeFromBuffer(upload.head);
    if (!declared) {
      const ext = path.extname(upload.filename);
      if (ext) throw badRequest(`Unsupported format: ${ext.slice(1).toLowerCase()}`);
      if (detected && isFormatId(detected.ext)) return detected.ext;
      throw badRequest(`Cannot tell the format of ${upload.filename}: give the file name its extension`);
    }
    const verdict = checkContent(declared, upload.head, detected?.ext);
    if (!verdict.ok) {
      throw badRequest(
        `Content does not match its declared type: ${upload.filename} is named .${declared} but contains ` +
          `${verdict.found}`,
      );
    }
    return declared;
  }
}
