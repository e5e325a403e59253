/**
 * tRPC FormData inputs without a second copy of any file.
 *
 * tRPC reads a FormData input with the Fetch API's `request.formData()`, which would hold every
 * file in memory. The adapter (index.ts) answers `formData()` itself: the HTTP surfaces' one
 * multipart reader streams each file straight into the blob store under the caller's plan and the
 * procedure's file limit (UploadService.stageForm, as REST), and the FormData tRPC parses holds,
 * for each file, a placeholder `File` that stands for its staged upload. Procedures turn files into
 * staged uploads with `stageFiles`: placeholders are taken as they are, any other File (an
 * in-process caller's) is streamed through the same UploadService call. The typed client sends
 * FormData as before and sees no difference.
 *
 * Placeholders no procedure took (a form refused after it was read) are discarded by the
 * adapter when the call is over (`discardUntaken`).
 */
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { badRequest } from '../../../core/services/errors.js';
import type { Principal, Services } from '../../../core/services/index.js';
import type { FormPart, FormRules, StagedForm, StagedUpload, UploadService } from '../../../core/services/uploads.js';

/** Staged uploads behind the placeholder Files of forms read by the adapter, until a procedure takes them. */
const untaken = new WeakMap<File, StagedUpload>();

/** A read form as the FormData tRPC parses: text fields, and a placeholder File per staged upload. */
export function toFormData(form: StagedForm): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(form.fields)) data.append(name, value);
  form.files.forEach((upload, i) => {
    const placeholder = new File([], upload.filename);
    untaken.set(placeholder, upload);
    data.append(form.fileFields[i]!, placeholder);
  });
  return data;
}

/** After the call: the uploads of a read form that no procedure took. */
export async function discardUntaken(uploads: UploadService, data: FormData): Promise<void> {
  const left: StagedUpload[] = [];
  for (const value of data.values()) {
    const upload = typeof value === 'string' ? undefined : untaken.get(value);
    if (upload) left.push(upload);
  }
  await uploads.discard(...left);
}

async function* fileParts(files: File[]): AsyncGenerator<FormPart> {
  for (const file of files) {
    yield {
      type: 'file',
      field: 'files',
      filename: file.name,
      stream: Readable.fromWeb(file.stream() as NodeReadableStream<Uint8Array>),
    };
  }
}

/**
 * A procedure's files as staged uploads, in the order sent, their count checked first (the
 * procedure's own limit: `tooMany` is the service's refusal of one more, if it has one). The
 * procedure owns them from here: it hands them to a service, which deletes them if it refuses.
 */
export async function stageFiles(
  services: Services,
  principal: Principal,
  files: File[],
  rules: Omit<FormRules, 'fileField'>,
): Promise<StagedUpload[]> {
  if (files.length > rules.maxFiles)
    throw rules.tooMany?.() ?? badRequest(`At most ${rules.maxFiles} files per request`);
  const read = files.map((file) => untaken.get(file));
  if (read.every((upload) => upload !== undefined)) {
    for (const file of files) untaken.delete(file);
    return read as StagedUpload[];
  }
  // An in-process caller's own Files (no HTTP body was read): streamed by the same call.
  return (await services.uploads.stageForm(principal, fileParts(files), rules)).files;
}

/** One file (see stageFiles). */
export async function stageFile(services: Services, principal: Principal, file: File): Promise<StagedUpload> {
  const [upload] = await stageFiles(services, principal, [file], { maxFiles: 1 });
  return upload!;
}
