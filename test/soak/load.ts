/**
 * The soak's client load: lanes that submit a mixed load (images, office documents, audio, slow text, pipelines,
 * batches) over REST, GraphQL and tRPC to either API, and cancel some jobs, until the deadline. Every answer is
 * recorded: an accepted job is the client's proof the service owes it an outcome. Each input file has a unique
 * stem, which its output keeps, so any job's output can be checked against what was sent.
 */
import { createTransmuteClient, type TransmuteClient } from '../../apps/server/trpc/client.js';
import type { SoakNode } from './cluster.js';
import { pngOf, wavOf, type Expectation, type SoakFile } from './inputs.js';
import type { Random } from '../testing/random.js';

export interface Account {
  name: string;
  key: string;
  accountId: string;
}

export type Kind = 'text' | 'image' | 'resize' | 'office' | 'media' | 'pipeline' | 'batch';
export type Surface = 'rest' | 'graphql' | 'trpc';

export interface Submission {
  kind: Kind;
  surface: Surface;
  api: string;
  account: Account;
  at: number;
  /** accepted: 200 and an id; refused: a clean error answer; unknown: no answer (the API died mid-request). */
  outcome: 'accepted' | 'refused' | 'unknown';
  status?: number;
  error?: string;
  jobId?: string;
  batchId?: string;
  files: number;
}

export interface Cancel {
  jobId: string;
  surface: Surface;
  /** 200, 409, or what else it answered (0: no answer). */
  status: number;
}

export interface Ledger {
  submissions: Submission[];
  cancels: Cancel[];
  /** Input stem → what its output must be. */
  expected: Map<string, Expectation>;
  /** 500 answers seen by the client (a fault must give 503 or a clean error, never a 500). */
  serverErrors: string[];
}

const REQUEST_TIMEOUT_MS = 60_000;

interface Answer {
  status: number;
  body: any;
}

class NoAnswer extends Error {}

/** fetch with a deadline; a network error (the API died) is NoAnswer. */
async function call(url: string, init: RequestInit): Promise<Answer> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  } catch (err) {
    throw new NoAnswer((err as Error).message);
  }
  const text = await res.text().catch(() => '');
  let body: any = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = { raw: text.slice(0, 200) };
  }
  return { status: res.status, body };
}

const auth = (key: string) => ({ authorization: `Bearer ${key}` });
const blobOf = (file: SoakFile) => new Blob([new Uint8Array(file.data)]);

function graphqlForm(query: string, variables: Record<string, unknown>, files: Array<[string, SoakFile]>): FormData {
  const form = new FormData();
  form.append('operations', JSON.stringify({ query, variables }));
  form.append('map', JSON.stringify(Object.fromEntries(files.map(([at], i) => [i, [`variables.${at}`]]))));
  for (const [i, [, file]] of files.entries()) form.append(String(i), blobOf(file), file.name);
  return form;
}

/** A tRPC client error's HTTP status (0: no answer). */
function trpcStatus(err: unknown): number {
  const data = (err as { data?: { httpStatus?: number } })?.data;
  return data?.httpStatus ?? 0;
}

export interface LoadOptions {
  apis: SoakNode[];
  accounts: Account[];
  documents: Array<{ file: SoakFile; phrase: string }>;
  webhookUrl?: string;
  lanes: number;
  until: number;
  cancelShare: number;
}

export class Load {
  readonly ledger: Ledger = { submissions: [], cancels: [], expected: new Map(), serverErrors: [] };
  private serial = 0;
  private readonly trpc = new Map<string, TransmuteClient>();
  private readonly pendingCancels = new Set<Promise<void>>();

  constructor(
    private readonly random: Random,
    private readonly options: LoadOptions,
  ) {}

  async run(): Promise<void> {
    await Promise.all(Array.from({ length: this.options.lanes }, (_, lane) => this.lane(this.random.fork(), lane)));
    await Promise.all(this.pendingCancels);
  }

  private client(api: SoakNode, account: Account): TransmuteClient {
    const id = `${api.url} ${account.key}`;
    let client = this.trpc.get(id);
    if (!client) {
      client = createTransmuteClient(api.url, account.key);
      this.trpc.set(id, client);
    }
    return client;
  }

  private async lane(random: Random, lane: number): Promise<void> {
    // Bounded by the deadline and by a count, whichever comes first.
    for (let i = 0; i < 100_000 && Date.now() < this.options.until; i++) {
      const kind = random.weighted<Kind>({
        text: 30,
        image: 16,
        resize: 8,
        office: 7,
        media: 9,
        pipeline: 12,
        batch: 8,
      });
      const surface = random.weighted<Surface>({ rest: 4, graphql: 3, trpc: 3 });
      const api = random.pick(this.options.apis);
      const account = random.pick(this.options.accounts);
      const submission: Submission = {
        kind,
        surface,
        api: api.name,
        account,
        at: Date.now(),
        outcome: 'unknown',
        files: 1,
      };
      this.ledger.submissions.push(submission);
      try {
        await this.submit(random, submission, api, account);
      } catch (err) {
        submission.outcome = 'unknown';
        submission.error = (err as Error).message;
      }
      if (submission.status === 500) this.ledger.serverErrors.push(`${kind} over ${surface}: ${submission.error}`);
      if (submission.outcome === 'accepted' && submission.jobId && random.next() < this.options.cancelShare) {
        const cancel = this.cancelLater(random.fork(), submission.jobId, api, account, random.int(0, 3000));
        this.pendingCancels.add(cancel);
        void cancel.finally(() => this.pendingCancels.delete(cancel));
      }
      // A short pause between requests: the lanes keep the workers busy without flooding a loaded machine.
      await new Promise((resolve) => setTimeout(resolve, random.int(100, 900) + lane * 10));
    }
  }

  private stem(): string {
    return `s${++this.serial}`;
  }

  private async submit(random: Random, sub: Submission, api: SoakNode, account: Account): Promise<void> {
    const expect = (stem: string, expectation: Expectation) => this.ledger.expected.set(stem, expectation);
    switch (sub.kind) {
      case 'text': {
        const stem = this.stem();
        const text = `soak ${stem} ${random.int(0, 1e9)}`;
        const steps = random.int(5, 40);
        expect(stem, { type: 'text', text: `# Converted\n\n${text.toUpperCase()}\n` });
        return this.convert(sub, api, account, { name: `${stem}.txt`, data: Buffer.from(text) }, 'md', {
          rest: { steps: String(steps) },
          graphql: { testSlowText: { steps } },
          trpc: { steps },
        });
      }
      case 'image': {
        const stem = this.stem();
        const [width, height] = [random.int(8, 300), random.int(8, 300)];
        // Not png: a PNG to PNG without an op is refused (400), as it should be.
        const to = random.pick(['jpg', 'webp'] as const);
        expect(stem, { type: 'image', format: to === 'jpg' ? 'jpeg' : 'webp', width, height });
        const file = { name: `${stem}.png`, data: await pngOf(random, width, height) };
        return this.convert(sub, api, account, file, to);
      }
      case 'resize': {
        const stem = this.stem();
        const [width, height] = [random.int(10, 150) * 2, random.int(10, 150) * 2];
        expect(stem, { type: 'image', format: 'png', width: width / 2, height: height / 2 });
        const file = { name: `${stem}.png`, data: await pngOf(random, width, height) };
        const resize = { width: width / 2 };
        return this.convert(sub, api, account, file, 'png', {
          op: 'resize',
          rest: { resize: JSON.stringify(resize) },
          graphql: { imageResize: { resize } },
          trpc: { resize },
        });
      }
      case 'office': {
        const stem = this.stem();
        const document = random.pick(this.options.documents);
        expect(stem, { type: 'pdf', pages: 1, phrase: document.phrase });
        return this.convert(sub, api, account, { name: `${stem}.docx`, data: document.file.data }, 'pdf');
      }
      case 'media': {
        const stem = this.stem();
        const seconds = random.int(5, 30) / 10;
        const to = random.pick(['mp3', 'flac'] as const);
        expect(stem, { type: 'audio', codec: to, seconds });
        const file = { name: `${stem}.wav`, data: wavOf(seconds, random.int(200, 900)) };
        return this.convert(sub, api, account, file, to);
      }
      case 'pipeline': {
        const stem = this.stem();
        const [width, height] = [random.int(10, 150) * 2, random.int(10, 150) * 2];
        expect(stem, { type: 'image', format: 'png', width: width / 2, height: height / 2 });
        const file = { name: `${stem}.png`, data: await pngOf(random, width, height) };
        return this.pipeline(sub, api, account, file, width / 2);
      }
      case 'batch': {
        const count = random.int(2, 3);
        const files: SoakFile[] = [];
        const stem = this.stem();
        for (let i = 0; i < count; i++) {
          const [width, height] = [random.int(8, 200), random.int(8, 200)];
          expect(`${stem}x${i}`, { type: 'image', format: 'jpeg', width, height });
          files.push({ name: `${stem}x${i}.png`, data: await pngOf(random, width, height) });
        }
        sub.files = count;
        return this.batch(sub, api, account, files);
      }
    }
  }

  private record(sub: Submission, answer: Answer, id: 'jobId' | 'batchId', value: unknown): void {
    sub.status = answer.status;
    if (answer.status === 200 && typeof value === 'string') {
      sub.outcome = 'accepted';
      sub[id] = value;
    } else {
      sub.outcome = answer.status >= 400 ? 'refused' : 'unknown';
      sub.error = JSON.stringify(answer.body).slice(0, 300);
    }
  }

  private async convert(
    sub: Submission,
    api: SoakNode,
    account: Account,
    file: SoakFile,
    to: string,
    options: { op?: string; rest?: Record<string, string>; graphql?: object; trpc?: object } = {},
  ): Promise<void> {
    if (sub.surface === 'rest') {
      const form = new FormData();
      form.append('to', to);
      if (options.op) form.append('op', options.op);
      for (const [name, value] of Object.entries(options.rest ?? {})) form.append(name, value);
      form.append('file', blobOf(file), file.name);
      const answer = await call(`${api.url}/api/v1/convert`, {
        method: 'POST',
        body: form,
        headers: auth(account.key),
      });
      return this.record(sub, answer, 'jobId', answer.body?.jobId);
    }
    if (sub.surface === 'graphql') {
      const query =
        'mutation($file: Upload!, $to: String!, $op: String, $options: ConvertOptions) ' +
        '{ convert(file: $file, to: $to, op: $op, options: $options) { jobId } }';
      const variables = { file: null, to, op: options.op ?? null, options: options.graphql ?? null };
      const answer = await call(`${api.url}/graphql`, {
        method: 'POST',
        body: graphqlForm(query, variables, [['file', file]]),
        headers: auth(account.key),
      });
      return this.recordGraphql(sub, answer, answer.body?.data?.convert?.jobId, 'jobId');
    }
    const form = new FormData();
    form.append('to', to);
    if (options.op) form.append('op', options.op);
    if (options.trpc) form.append('options', JSON.stringify(options.trpc));
    form.append('file', blobOf(file), file.name);
    await this.trpcCall(sub, 'jobId', () => this.client(api, account).convert.mutate(form));
  }

  private async pipeline(sub: Submission, api: SoakNode, account: Account, file: SoakFile, width: number) {
    const steps = [{ to: 'webp', quality: 90 }, { op: 'resize', resize: { width } }, { to: 'png' }];
    if (sub.surface === 'graphql') {
      const query =
        'mutation($file: Upload, $p: PipelineInput!) { createPipeline(file: $file, pipeline: $p) { jobId } }';
      const p = {
        steps: [
          { to: 'webp', options: { imageConvert: { quality: 90 } } },
          { op: 'resize', options: { imageResize: { resize: { width } } } },
          { to: 'png' },
        ],
      };
      const answer = await call(`${api.url}/graphql`, {
        method: 'POST',
        body: graphqlForm(query, { file: null, p }, [['file', file]]),
        headers: auth(account.key),
      });
      return this.recordGraphql(sub, answer, answer.body?.data?.createPipeline?.jobId, 'jobId');
    }
    const form = new FormData();
    form.append('pipeline', JSON.stringify({ steps }));
    form.append('file', blobOf(file), file.name);
    if (sub.surface === 'rest') {
      const answer = await call(`${api.url}/api/v1/pipelines`, {
        method: 'POST',
        body: form,
        headers: auth(account.key),
      });
      return this.record(sub, answer, 'jobId', answer.body?.jobId);
    }
    await this.trpcCall(sub, 'jobId', () => this.client(api, account).pipelines.create.mutate(form));
  }

  private async batch(sub: Submission, api: SoakNode, account: Account, files: SoakFile[]) {
    if (sub.surface === 'graphql') {
      const query =
        'mutation($files: [Upload!]!, $to: String!) { batchConvert(files: $files, to: $to) { batchId total } }';
      const answer = await call(`${api.url}/graphql`, {
        method: 'POST',
        body: graphqlForm(
          query,
          { files: files.map(() => null), to: 'jpg' },
          files.map((file, i) => [`files.${i}`, file]),
        ),
        headers: auth(account.key),
      });
      return this.recordGraphql(sub, answer, answer.body?.data?.batchConvert?.batchId, 'batchId');
    }
    const form = new FormData();
    form.append('to', 'jpg');
    for (const file of files) form.append('files', blobOf(file), file.name);
    if (sub.surface === 'rest') {
      const answer = await call(`${api.url}/api/batch/convert`, {
        method: 'POST',
        body: form,
        headers: auth(account.key),
      });
      return this.record(sub, answer, 'batchId', answer.body?.batchId);
    }
    await this.trpcCall(sub, 'batchId', () => this.client(api, account).batch.convert.mutate(form));
  }

  private recordGraphql(sub: Submission, answer: Answer, id: unknown, field: 'jobId' | 'batchId'): void {
    if (answer.status === 200 && typeof id === 'string') {
      this.record(sub, answer, field, id);
      return;
    }
    sub.status = answer.status === 200 ? 400 : answer.status;
    sub.outcome = answer.status >= 400 || answer.body?.errors ? 'refused' : 'unknown';
    sub.error = JSON.stringify(answer.body?.errors ?? answer.body).slice(0, 300);
  }

  private async trpcCall(
    sub: Submission,
    field: 'jobId' | 'batchId',
    mutate: () => Promise<{ jobId?: string; batchId?: string }>,
  ): Promise<void> {
    try {
      const answer = await mutate();
      this.record(sub, { status: 200, body: answer }, field, answer[field]);
    } catch (err) {
      const status = trpcStatus(err);
      sub.status = status;
      sub.outcome = status >= 400 ? 'refused' : 'unknown';
      sub.error = (err as Error).message.slice(0, 300);
    }
  }

  private async cancelLater(random: Random, jobId: string, api: SoakNode, account: Account, afterMs: number) {
    await new Promise((resolve) => setTimeout(resolve, afterMs));
    const surface = random.pick(['rest', 'graphql', 'trpc'] as const);
    const cancel: Cancel = { jobId, surface, status: 0 };
    this.ledger.cancels.push(cancel);
    try {
      if (surface === 'rest') {
        cancel.status = (
          await call(`${api.url}/api/v1/jobs/${jobId}`, { method: 'DELETE', headers: auth(account.key) })
        ).status;
      } else if (surface === 'graphql') {
        const answer = await call(`${api.url}/graphql`, {
          method: 'POST',
          headers: { ...auth(account.key), 'content-type': 'application/json' },
          body: JSON.stringify({ query: `mutation { cancelJob(id: "${jobId}") { status } }` }),
        });
        const code = answer.body?.errors?.[0]?.extensions?.code;
        cancel.status = answer.status !== 200 ? answer.status : code === 'CONFLICT' ? 409 : code ? 400 : 200;
      } else {
        try {
          await this.client(api, account).jobs.cancel.mutate({ jobId });
          cancel.status = 200;
        } catch (err) {
          cancel.status = trpcStatus(err);
        }
      }
    } catch {
      cancel.status = 0;
    }
  }
}
