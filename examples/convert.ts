/**
 * Convert a file from a TypeScript script with the typed tRPC client.
 *
 *   TRANSMUTE_URL=http://localhost:3000 TRANSMUTE_API_KEY=ck_live_... \
 *     npx tsx examples/convert.ts photo.png webp [--op compress] [--options '{"quality":60}'] [--out photo.webp]
 *
 * Uploads the file, follows the job over SSE until it is done, and saves the result
 * (by default beside the input, named by the server, with "-converted" before the extension).
 */
import { openAsBlob } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { JobStatus } from '../schema/index.js';
import { createTransmuteClient } from '../apps/server/trpc/client.js';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { op: { type: 'string' }, options: { type: 'string' }, out: { type: 'string' } },
});
const [input, to] = positionals;
const apiKey = process.env.TRANSMUTE_API_KEY;
if (!input || !to || !apiKey) {
  console.error(
    'usage: TRANSMUTE_API_KEY=ck_live_... [TRANSMUTE_URL=...] tsx examples/convert.ts <file> <to> [--op op] ' +
      '[--options json] [--out path]',
  );
  process.exit(2);
}

const transmute = createTransmuteClient(process.env.TRANSMUTE_URL ?? 'http://localhost:3000', apiKey);

const form = new FormData();
form.append('file', await openAsBlob(input), path.basename(input));
form.append('to', to);
if (values.op) form.append('op', values.op);
if (values.options) form.append('options', values.options);
const accepted = await transmute.convert.mutate(form);
console.log(`accepted ${accepted.jobId}: ${accepted.creditCost} credits, ${accepted.creditsRemaining} left this month`);

const job = await new Promise<JobStatus>((resolve, reject) => {
  const subscription = transmute.jobs.watch.subscribe(
    { jobId: accepted.jobId },
    {
      onData(status) {
        if (status.status === 'done' || status.status === 'failed') {
          subscription.unsubscribe();
          resolve(status);
        } else console.log(`${status.status} ${status.progress ?? 0}%`);
      },
      onError: reject,
    },
  );
});
if (job.status === 'failed' || !job.downloadUrl) {
  console.error(`failed: ${job.error ?? 'no download link'}`);
  process.exit(1);
}

const response = await fetch(job.downloadUrl);
if (!response.ok) throw new Error(`download answered ${response.status}`);
const served = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? `output.${to}`;
const ext = path.extname(served);
const output = values.out ?? path.join(path.dirname(input), `${path.basename(served, ext)}-converted${ext}`);
await writeFile(output, Buffer.from(await response.arrayBuffer()));
console.log(`saved ${output}${job.toolReport ? ` (${job.toolReport.op}: ${job.toolReport.detected} found)` : ''}`);
