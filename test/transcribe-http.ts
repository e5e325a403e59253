/** What the transcription e2e tests share: submitting files to POST /api/transcribe and polling its rows. */
import { authHeaders, getJson } from './helpers.js';

export async function submitTranscription(
  url: string,
  key: string,
  files: Array<{ name: string; data: Buffer }>,
  fields: Record<string, string> = {},
) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  for (const f of files) form.append('files', new Blob([new Uint8Array(f.data)]), f.name);
  const res = await fetch(`${url}/api/transcribe`, { method: 'POST', body: form, headers: authHeaders(key) });
  return { status: res.status, body: (await res.json()) as any };
}

/** Poll the batch's status URL until done (long recordings take a while: up to 4 minutes here). */
export async function waitForTranscription(url: string, key: string, statusUrl: string) {
  const deadline = Date.now() + 240_000;
  while (Date.now() < deadline) {
    const { status, body } = await getJson(`${url}${statusUrl}`, key);
    if (status !== 200) throw new Error(`poll answered ${status}: ${JSON.stringify(body)}`);
    if (body.done) return body;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('transcription did not finish');
}
