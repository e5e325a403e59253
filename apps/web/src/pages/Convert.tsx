/**
 * The convert page: drop files (or pick them), choose what to do from what the server offers for their format
 * (`formats`), fill in the operation's options (rendered from its JSON Schema and checked before upload), then
 * watch each file upload and run: upload progress from the XMLHttpRequest, job progress live over the
 * `jobUpdated` subscription. Several files convert one by one with a download each, or together as one batch
 * ZIP; PDFs merge; extraction tools show their rows as tables; op=structure draws the document model's tree and
 * op=chunk its chunks. Instead of files, one https URL the server fetches (`convert(url:)`); after a conversion
 * or tool, a "then…" chain of further steps runs as one pipeline job (`createPipeline`), each step on the
 * previous output with its default options.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, request, subscribe, upload } from '../client.ts';
import { ChunkView, StructureView, type Chunks, type DocumentModel } from '../components/DocumentView.tsx';
import { ExtractionResult, type Row } from '../components/ExtractionResult.tsx';
import { OptionsForm } from '../components/OptionsForm.tsx';
import { errorText, formatBytes } from '../format.ts';
import type { ResultOf, VariablesOf } from '../graphql.ts';
import {
  CancelJob,
  BatchConvert,
  BatchQuery,
  Convert,
  ConvertUrl,
  CreatePipeline,
  DocumentResult,
  ExtractionQuery,
  FileSearch,
  JobQuery,
  FormatsQuery,
  JobUpdated,
  MergePdf,
  ParseCv,
  PdfToMarkdown,
  Transcribe,
} from '../operations.ts';
import { onLinkClick } from '../router.ts';
import { buildOptions, initialDraft, type Draft, type JsonSchema } from '../schema-form.ts';

type Formats = NonNullable<ResultOf<typeof FormatsQuery>['formats']>;
type Operation = Formats['operations'][number];
type Job = NonNullable<ResultOf<typeof JobUpdated>['jobUpdated']>;
type ConvertOptions = NonNullable<VariablesOf<typeof Convert>['options']>;
type PipelineStep = VariablesOf<typeof CreatePipeline>['pipeline']['steps'][number];

const PLAN_RANK: Record<string, number> = { free: 0, pro: 1, business: 2, enterprise: 3 };
/** The extraction tools this page has a mutation for (the spec's four). */
const EXTRACTION_TOOLS = new Set(['pdf-to-markdown', 'file-search', 'parse-cv', 'transcribe']);
/** Uploads and live streams at once: browsers keep six connections per host. */
const CONCURRENT_FILES = 3;

interface Action {
  id: string;
  label: string;
  kind: 'convert' | 'tool' | 'extract' | 'merge';
  to?: string;
  op?: string;
  tool?: string;
  /** A tool op's output format when it is not the input's (blur-faces: png, split-pdf: zip). */
  output?: string;
  /** A tool op's output formats (it keeps its input's format when it can). */
  outputs?: string[];
  schema: JsonSchema;
  /** The field of ConvertOptions that carries the options (convert and tool actions that take any). */
  optionsField?: string | null;
  plan: string;
}

/** The input format of a file, from its name, as the server first reads it. */
const formatOf = (name: string) => /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase() ?? '';
/** At most 10 steps in a pipeline: the first action and 9 more. */
const MAX_CHAIN = 9;

/** The file name at the end of a URL's path ('' when it has none, or is no URL). */
function nameFromUrl(text: string): string {
  try {
    const last = new URL(text.trim()).pathname.split('/').pop() ?? '';
    return decodeURIComponent(last);
  } catch {
    return '';
  }
}

/** What a step makes of a file of format `from`. */
function outputOf(action: Action, from: string): string {
  if (action.kind === 'convert') return action.to!;
  return action.outputs?.includes(from) ? from : (action.output ?? from);
}

/**
 * A pipeline step of an action: its options, if any, under the plugin's field of ConvertOptions,
 * as convert takes them.
 */
function pipelineStep(action: Action, options: Record<string, unknown>): PipelineStep {
  const typed =
    action.optionsField && Object.keys(options).length
      ? { options: { [action.optionsField]: options } as ConvertOptions }
      : {};
  return action.kind === 'convert' ? { to: action.to ?? null, ...typed } : { op: action.op ?? null, ...typed };
}

/** One thing to convert: a file to upload, or a URL the server fetches. */
interface Source {
  name: string;
  file?: File;
  url?: string;
}
const EMPTY_SCHEMA: JsonSchema = { type: 'object', properties: {} };

/** What can be done with all of these files at once. */
function actionsFor(names: string[], formats: Formats): Action[] {
  const kinds = [...new Set(names.map(formatOf))];
  if (kinds.length === 0 || kinds.includes('')) return [];
  const ops = formats.operations.filter((operation) => operation.available);
  const actions: Action[] = [];

  const targets = kinds
    .map((from) => formats.conversions.find((conversion) => conversion.from === from)?.to ?? [])
    .reduce((common, next) => common.filter((to) => next.includes(to)));
  for (const to of targets) {
    const plugin = ops.find(
      (operation) =>
        operation.kind === 'convert' && operation.inputs.includes(kinds[0]!) && operation.outputs.includes(to),
    );
    actions.push({
      id: `convert:${to}`,
      label: `Convert to ${to.toUpperCase()}`,
      kind: 'convert',
      to,
      schema: (plugin?.options as JsonSchema) ?? EMPTY_SCHEMA,
      optionsField: plugin?.optionsField,
      plan: plugin?.plan ?? 'free',
    });
  }

  if (names.length >= 2 && kinds.every((kind) => kind === 'pdf')) {
    const merge = ops.find((operation) => operation.op === 'merge-pdf');
    if (merge)
      actions.push({ id: 'merge', label: 'Merge into one PDF', kind: 'merge', schema: EMPTY_SCHEMA, plan: merge.plan });
  }

  const byOp = new Map<string, Operation[]>();
  for (const operation of ops)
    if (operation.kind === 'tool' && operation.op && operation.op !== 'merge-pdf')
      byOp.set(operation.op, [...(byOp.get(operation.op) ?? []), operation]);
  for (const [op, plugins] of byOp) {
    if (!kinds.every((kind) => plugins.some((plugin) => plugin.inputs.includes(kind)))) continue;
    const plugin = plugins.find((candidate) => candidate.inputs.includes(kinds[0]!))!;
    actions.push({
      id: `tool:${op}`,
      label: plugin.title,
      kind: 'tool',
      op,
      output: plugin.outputs[0],
      outputs: plugin.outputs,
      schema: plugin.options as JsonSchema,
      optionsField: plugin.optionsField,
      plan: plugin.plan,
    });
  }

  for (const operation of ops) {
    if (operation.kind !== 'extract' || !EXTRACTION_TOOLS.has(operation.pluginId)) continue;
    if (!kinds.every((kind) => operation.inputs.includes(kind))) continue;
    actions.push({
      id: `extract:${operation.pluginId}`,
      label: operation.title,
      kind: 'extract',
      tool: operation.pluginId,
      schema: operation.options as JsonSchema,
      plan: operation.plan,
    });
  }
  return actions;
}

interface Task {
  key: number;
  label: string;
  phase: 'pending' | 'uploading' | 'fetching' | 'queued' | 'running' | 'done' | 'failed';
  /** 0-100 of the current phase. */
  percent: number;
  downloadUrl?: string;
  downloadLabel?: string;
  error?: string;
  note?: string;
  /** The credits the job cost and what is left, from the answer to the upload. */
  charge?: string;
  extraction?: { tool: string; rows: Row[]; totalHits?: number | null };
  /** The job behind it, once accepted (the cancel button needs it). */
  jobId?: string;
  /** op=structure's model or op=chunk's chunks, shown once the job is done. */
  document?: DocumentModel;
  chunks?: Chunks;
}

/** The ops whose result is the document model or chunks: their `to` is the op's one output (json, jsonl). */
const DOCUMENT_OPS = new Set(['structure', 'chunk']);

const PHASE_TEXT: Record<Task['phase'], string> = {
  pending: 'Waiting to upload',
  uploading: 'Uploading',
  fetching: 'Fetching from the URL',
  queued: 'Queued',
  running: 'Working',
  done: 'Done',
  failed: 'Failed',
};

export function ConvertPage() {
  const [formats, setFormats] = useState<Formats | null>(null);
  const [plan, setPlan] = useState('free');
  const [loadError, setLoadError] = useState('');
  const [files, setFiles] = useState<File[]>([]);
  const [url, setUrl] = useState('');
  /** The "then…" steps after the chosen action, as action ids. */
  const [chain, setChain] = useState<string[]>([]);
  const [actionId, setActionId] = useState('');
  // Per action, so what was typed survives switching back and forth, and no effect has to reset it.
  const [drafts, setDrafts] = useState<Record<string, Draft>>({});
  const [checked, setChecked] = useState<{ actionId: string; errors: Record<string, string> }>({
    actionId: '',
    errors: {},
  });
  const [asZip, setAsZip] = useState(false);
  const [tasks, setTasks] = useState<Task[]>([]);
  const [running, setRunning] = useState(false);
  const [dragging, setDragging] = useState(false);
  const closers = useRef<(() => void)[]>([]);
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => {
    request(FormatsQuery).then(
      (data) => {
        setFormats(data.formats ?? null);
        if (data.credits) setPlan(data.credits.plan.toLowerCase());
      },
      (error) => setLoadError(errorText(error)),
    );
    return () => {
      for (const close of closers.current) close();
    };
  }, []);

  // Files win over a URL; a URL source takes one-file actions only (no merge, extraction or batch).
  const sources: Source[] = files.length
    ? files.map((file) => ({ name: file.name, file }))
    : url.trim()
      ? [{ name: nameFromUrl(url), url: url.trim() }]
      : [];
  const names = sources.map((source) => source.name);
  const actions = useMemo(
    () =>
      formats
        ? actionsFor(names, formats).filter(
            (candidate) => files.length > 0 || candidate.kind === 'convert' || candidate.kind === 'tool',
          )
        : [],
    [names.join('\n'), files.length, formats],
  );
  // A new set of files keeps the chosen action when it still applies, else takes the first.
  const action = actions.find((candidate) => candidate.id === actionId) ?? actions[0];
  const draft = action ? (drafts[action.id] ?? initialDraft(action.schema)) : {};
  const setDraft = (next: Draft) => action && setDrafts((all) => ({ ...all, [action.id]: next }));
  const errors = action && checked.actionId === action.id ? checked.errors : {};
  // The chain follows the first source's format; the steps that no longer connect are dropped.
  const chainable = Boolean(
    formats && action && (action.kind === 'convert' || action.kind === 'tool') && !(files.length > 1 && asZip),
  );
  const chainSteps: Action[] = [];
  let chainFormat = action && names[0] ? outputOf(action, formatOf(names[0])) : '';
  const stepChoices = (from: string) =>
    formats
      ? actionsFor([`file.${from}`], formats).filter(
          (candidate) => candidate.kind === 'convert' || candidate.kind === 'tool',
        )
      : [];
  if (chainable) {
    for (const id of chain) {
      const next = stepChoices(chainFormat).find((candidate) => candidate.id === id);
      if (!next) break;
      chainSteps.push(next);
      chainFormat = outputOf(next, chainFormat);
    }
  }
  const nextChoices = chainable && chainSteps.length < MAX_CHAIN ? stepChoices(chainFormat) : [];

  const addFiles = (list: FileList | null) => {
    if (!list?.length || running) return;
    const added = Array.from(list);
    // Files dropped after a finished run start a new set; before one, they join the set.
    setFiles((current) => (tasks.length ? added : [...current, ...added]));
    setUrl('');
    setTasks([]);
  };
  useEffect(() => {
    // A file dropped beside the zone must not make the browser leave the page to open it.
    const keep = (event: DragEvent) => event.preventDefault();
    addEventListener('dragover', keep);
    addEventListener('drop', keep);
    return () => {
      removeEventListener('dragover', keep);
      removeEventListener('drop', keep);
    };
  }, []);
  const move = (index: number, by: number) =>
    setFiles((current) => {
      const next = [...current];
      const [file] = next.splice(index, 1);
      next.splice(index + by, 0, file!);
      return next;
    });

  const update = (key: number, change: Partial<Task>) =>
    setTasks((all) => all.map((task) => (task.key === key ? { ...task, ...change } : task)));

  /** Follows one job over the subscription until it is done or failed. */
  /** The typed model or chunks of a finished job, shown under it. */
  const showDocument = async (key: number, jobId: string) => {
    try {
      const { job } = await request(DocumentResult, { id: jobId });
      update(key, { document: job?.document ?? undefined, chunks: job?.chunks ?? undefined });
    } catch (error) {
      update(key, { note: `The result could not be shown: ${errorText(error)}` });
    }
  };

  const follow = (key: number, jobId: string, documentView = false) =>
    new Promise<void>((resolve) => {
      update(key, { jobId });
      let shown = false;
      const show = (job: Job) => {
        if (job.status === 'done') {
          update(key, {
            phase: 'done',
            percent: 100,
            downloadUrl: job.downloadUrl ?? undefined,
            note: reportText(job),
          });
          if (documentView && !shown) {
            shown = true;
            void showDocument(key, jobId);
          }
        } else if (job.status === 'failed')
          update(key, { phase: 'failed', error: job.error ?? 'The conversion failed.' });
        else update(key, { phase: job.status === 'active' ? 'running' : 'queued', percent: job.progress ?? 0 });
      };
      let finished = false;
      const close = subscribe(
        JobUpdated,
        { id: jobId },
        {
          next: ({ jobUpdated }) => {
            if (!jobUpdated) return;
            finished = jobUpdated.status === 'done' || jobUpdated.status === 'failed';
            show(jobUpdated);
          },
          // The live stream broke (a proxy cutting it, a restart): poll the job instead.
          error: async (error) => {
            for (let delay = 1000; !finished; delay = Math.min(5000, delay * 1.5)) {
              await sleep(delay);
              try {
                const { job } = await request(JobQuery, { id: jobId });
                if (!job) break;
                finished = job.status === 'done' || job.status === 'failed';
                show(job);
              } catch (failure) {
                update(key, { phase: 'failed', error: failure instanceof ApiError ? failure.message : error.message });
                break;
              }
            }
            resolve();
          },
          complete: resolve,
        },
      );
      closers.current.push(close);
    });

  /** The cancel button: the job ends failed "Cancelled" (the live stream then shows it). */
  const cancel = async (task: Task) => {
    if (!task.jobId) return;
    try {
      const { cancelJob } = await request(CancelJob, { id: task.jobId });
      if (cancelJob?.status === 'failed') update(task.key, { phase: 'failed', error: cancelJob.error ?? 'Cancelled' });
    } catch (error) {
      update(task.key, { note: errorText(error) });
    }
  };

  const uploadProgress = (key: number) => (sent: number) =>
    update(key, { phase: 'uploading', percent: Math.round(sent * 100) });

  const run = async (event: Event) => {
    event.preventDefault();
    if (!action || running) return;
    const built = buildOptions(action.schema, draft);
    setChecked({ actionId: action.id, errors: built.errors });
    if (Object.keys(built.errors).length) {
      // After the messages render: take the keyboard to the first field to fix.
      setTimeout(() => document.querySelector<HTMLElement>('[aria-invalid="true"], .field-error')?.focus());
      return;
    }
    // The form is drawn from the plugin's JSON Schema, so its value is typed by that schema, not by TypeScript.
    const options =
      Object.keys(built.value).length && action.optionsField
        ? ({ [action.optionsField]: built.value } as ConvertOptions)
        : null;
    setRunning(true);
    try {
      if (action.kind === 'merge')
        await runOne({ label: `${files.length} PDFs merged`, downloadLabel: 'Download merged.pdf' }, (key) =>
          upload(
            MergePdf,
            { files: [] as File[] },
            files.map((file, i) => ({ path: `files.${i}`, file })),
            uploadProgress(key),
          ).then((r) => r.mergePdf),
        );
      else if (action.kind === 'extract') await runExtraction(action, built.value);
      else if (files.length > 1 && asZip) await runBatch(action, options);
      else
        await runEach(
          action,
          options,
          chainSteps.length
            ? [pipelineStep(action, built.value), ...chainSteps.map((step) => pipelineStep(step, {}))]
            : null,
        );
    } finally {
      setRunning(false);
    }
  };

  const runOne = async (
    task: { label: string; downloadLabel: string },
    send: (key: number) => Promise<Job | null | undefined>,
  ) => {
    const key = Date.now();
    setTasks([{ key, ...task, phase: 'uploading', percent: 0 }]);
    try {
      const job = await send(key);
      if (!job) throw new ApiError('The server did not accept the files.');
      update(key, { phase: 'queued', percent: 0, charge: chargeText(job) });
      await follow(key, job.jobId);
    } catch (error) {
      update(key, { phase: 'failed', error: errorText(error) });
    }
  };

  /** One job per source: a conversion, or a pipeline of `steps` when a chain follows the action. */
  const runEach = async (chosen: Action, options: ConvertOptions | null, steps: PipelineStep[] | null) => {
    const base = Date.now();
    const queue = sources.map((source, index) => ({ source, key: base + index }));
    setTasks(queue.map(({ source, key }) => ({ key, label: source.url ?? source.name, phase: 'pending', percent: 0 })));
    const send = (source: Source, key: number) => {
      const { file, url: from } = source;
      const to =
        chosen.kind === 'convert'
          ? chosen.to!
          : DOCUMENT_OPS.has(chosen.op ?? '')
            ? outputOf(chosen, formatOf(source.name))
            : formatOf(source.name);
      if (!file) update(key, { phase: 'fetching' });
      if (steps) {
        return file
          ? upload(CreatePipeline, { file, pipeline: { steps } }, [{ path: 'file', file }], uploadProgress(key)).then(
              (answer) => answer.createPipeline,
            )
          : request(CreatePipeline, { pipeline: { input: { url: from! }, steps } }).then(
              (answer) => answer.createPipeline,
            );
      }
      return file
        ? upload(
            Convert,
            { file, to, op: chosen.op ?? null, options },
            [{ path: 'file', file }],
            uploadProgress(key),
          ).then((answer) => answer.convert)
        : request(ConvertUrl, { url: from!, to, op: chosen.op ?? null, options }).then((answer) => answer.convert);
    };
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const { source, key } = next;
        try {
          const output = steps ? chainFormat : outputOf(chosen, formatOf(source.name));
          update(key, { downloadLabel: `Download ${source.name.replace(/\.[^.]+$/, '') || 'file'}.${output}` });
          const convert = await send(source, key);
          if (!convert) throw new ApiError('The server did not accept the file.');
          update(key, { phase: 'queued', percent: 0, charge: chargeText(convert) });
          // The model or chunks are drawn when the job (or the pipeline's last step) is a document op.
          const last = steps?.at(-1);
          const documentView = DOCUMENT_OPS.has((steps ? last?.op : chosen.op) ?? '');
          await follow(key, convert.jobId, documentView);
        } catch (error) {
          update(key, { phase: 'failed', error: errorText(error) });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENT_FILES, sources.length) }, worker));
  };

  const runBatch = async (chosen: Action, options: ConvertOptions | null) => {
    const key = Date.now();
    setTasks([{ key, label: `${files.length} files as one ZIP`, phase: 'uploading', percent: 0 }]);
    try {
      const to = chosen.kind === 'convert' ? chosen.to! : formatOf(files[0]!.name);
      const { batchConvert } = await upload(
        BatchConvert,
        { files: [] as File[], to, op: chosen.op ?? null, options },
        files.map((file, i) => ({ path: `files.${i}`, file })),
        uploadProgress(key),
      );
      if (!batchConvert) throw new ApiError('The server did not accept the files.');
      const rejected = batchConvert.errors.map((rejection) => `${rejection.filename}: ${rejection.error}`).join('; ');
      update(key, { phase: 'running', percent: 0, note: rejected ? `Not included: ${rejected}` : undefined });
      for (let delay = 500; ; delay = Math.min(2000, delay * 1.5)) {
        await sleep(delay);
        const { batch } = await request(BatchQuery, { id: batchConvert.batchId });
        if (!batch) throw new ApiError('The batch was not found.');
        const percent = batch.total ? Math.round((batch.completed / batch.total) * 100) : 100;
        if (batch.done) {
          update(key, {
            phase: 'done',
            percent: 100,
            downloadUrl: batch.downloadUrl ?? undefined,
            downloadLabel: 'Download ZIP',
          });
          return;
        }
        update(key, { percent });
      }
    } catch (error) {
      update(key, { phase: 'failed', error: errorText(error) });
    }
  };

  const runExtraction = async (chosen: Action, options: Record<string, unknown>) => {
    const key = Date.now();
    const tool = chosen.tool!;
    setTasks([
      { key, label: files.length === 1 ? files[0]!.name : `${files.length} files`, phase: 'uploading', percent: 0 },
    ]);
    const parts = files.map((file, i) => ({ path: `files.${i}`, file }));
    const progress = uploadProgress(key);
    try {
      const none = [] as File[];
      let accepted: { batchId: string; errors: Array<{ filename: string; error: string }> } | null | undefined;
      if (tool === 'pdf-to-markdown')
        accepted = (
          await upload(
            PdfToMarkdown,
            {
              files: none,
              keepRunning: options.keepRunning as boolean | undefined,
              pageBreaks: options.pageBreaks as boolean | undefined,
              lang: options.lang as string | undefined,
            },
            parts,
            progress,
          )
        ).pdfToMarkdown;
      else if (tool === 'file-search')
        accepted = (
          await upload(
            FileSearch,
            {
              files: none,
              query: String(options.query ?? ''),
              wholeWord: options.wholeWord as boolean | undefined,
              caseSensitive: options.caseSensitive as boolean | undefined,
            },
            parts,
            progress,
          )
        ).fileSearch;
      else if (tool === 'parse-cv') accepted = (await upload(ParseCv, { files: none }, parts, progress)).parseCv;
      else
        accepted = (
          await upload(Transcribe, { files: none, lang: (options.lang as 'en' | undefined) ?? null }, parts, progress)
        ).transcribe;
      if (!accepted) throw new ApiError('The server did not accept the files.');
      const rejected = accepted.errors.map((rejection) => `${rejection.filename}: ${rejection.error}`).join('; ');
      update(key, { phase: 'running', percent: 0, note: rejected ? `Not included: ${rejected}` : undefined });
      for (let delay = 500; ; delay = Math.min(2000, delay * 1.5)) {
        await sleep(delay);
        const { extraction } = await request(ExtractionQuery, { tool, id: accepted.batchId });
        if (!extraction) throw new ApiError('The results were not found.');
        const done = extraction.completed + extraction.failed;
        const result = { tool, rows: extraction.rows, totalHits: extraction.totalHits };
        if (extraction.done) {
          update(key, {
            phase: extraction.failed === extraction.total ? 'failed' : 'done',
            percent: 100,
            extraction: result,
            error: extraction.failed === extraction.total ? 'No file could be processed.' : undefined,
          });
          return;
        }
        update(key, {
          percent: extraction.total ? Math.round((done / extraction.total) * 100) : 0,
          extraction: result,
        });
      }
    } catch (error) {
      update(key, { phase: 'failed', error: errorText(error) });
    }
  };

  const reset = () => {
    for (const close of closers.current) close();
    closers.current = [];
    setFiles([]);
    setUrl('');
    setChain([]);
    setTasks([]);
    if (input.current) input.current.value = '';
  };

  if (loadError)
    return (
      <p class="error" role="alert">
        {loadError}
      </p>
    );
  const needsHigherPlan = action && (PLAN_RANK[action.plan] ?? 0) > (PLAN_RANK[plan] ?? 0);

  return (
    <section>
      <h1>Convert files</h1>
      <form onSubmit={run} class="convert" noValidate>
        {/* biome-ignore lint/a11y/noStaticElementInteractions: a drop zone; its labelled file input is the
            keyboard path */}
        <div
          class={dragging ? 'drop active' : 'drop'}
          onDragOver={(event) => {
            event.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={(event) => {
            event.preventDefault();
            setDragging(false);
            addFiles(event.dataTransfer?.files ?? null);
          }}
        >
          <p class="drop-title">Drop files here</p>
          <p class="hint">or</p>
          <label for="files" class="button">
            Choose files
          </label>
          <input
            id="files"
            ref={input}
            class="file-input"
            type="file"
            multiple
            onChange={(event) => {
              addFiles(event.currentTarget.files);
              // Lets the same file be chosen again later.
              event.currentTarget.value = '';
            }}
          />
        </div>
        {files.length ? null : (
          <div class="field url-source">
            <label for="source-url">Or convert a file from a URL</label>
            <input
              id="source-url"
              type="url"
              inputMode="url"
              placeholder="https://example.com/report.docx"
              value={url}
              disabled={running}
              onInput={(event) => {
                setUrl(event.currentTarget.value);
                setTasks([]);
              }}
            />
            <p class="hint">The server fetches it (https only); its name must end with the file's extension.</p>
          </div>
        )}

        {sources.length ? (
          <div class="card">
            <h2>{files.length ? 'Files' : 'From a URL'}</h2>
            {files.length ? null : (
              <p class="files">
                <span class="name">{names[0] || url.trim()}</span>
              </p>
            )}
            <ol class="files">
              {files.map((file, index) => (
                <li key={`${file.name}-${index}`}>
                  <span class="name">{file.name}</span> <span class="hint">{formatBytes(file.size)}</span>
                  <span class="file-actions">
                    {action?.kind === 'merge' ? (
                      <>
                        <button
                          type="button"
                          aria-label={`Move ${file.name} up`}
                          disabled={index === 0 || running}
                          onClick={() => move(index, -1)}
                        >
                          ↑
                        </button>
                        <button
                          type="button"
                          aria-label={`Move ${file.name} down`}
                          disabled={index === files.length - 1 || running}
                          onClick={() => move(index, 1)}
                        >
                          ↓
                        </button>
                      </>
                    ) : null}
                    <button
                      type="button"
                      aria-label={`Remove ${file.name}`}
                      disabled={running}
                      onClick={() => setFiles(files.filter((_, i) => i !== index))}
                    >
                      Remove
                    </button>
                  </span>
                </li>
              ))}
            </ol>
            {!formats ? (
              <p aria-live="polite">Loading formats…</p>
            ) : actions.length === 0 ? (
              <p class="error" role="alert">
                {!files.length && formatOf(names[0] ?? '') === ''
                  ? 'Give the URL of a file whose name ends with its extension (e.g. https://example.com/report.docx).'
                  : names.some((name) => formatOf(name) === '')
                    ? 'A file has no extension, so its format is unknown. Rename it with its extension (e.g. ' +
                      'photo.png).'
                    : files.length > 1
                      ? 'There is nothing these files can all be converted to together. Convert them in separate ' +
                        'groups.'
                      : `Files of type .${formatOf(names[0]!)} are not supported.`}
              </p>
            ) : (
              <>
                <div class="field">
                  <label for="action">What to do</label>
                  <select
                    id="action"
                    value={action?.id ?? ''}
                    onChange={(event) => setActionId(event.currentTarget.value)}
                    disabled={running}
                  >
                    {groups.map(([kind, title]) => {
                      const members = actions.filter((candidate) => candidate.kind === kind);
                      return members.length ? (
                        <optgroup key={kind} label={title}>
                          {members.map((candidate) => (
                            <option key={candidate.id} value={candidate.id}>
                              {candidate.label}
                              {(PLAN_RANK[candidate.plan] ?? 0) > (PLAN_RANK[plan] ?? 0)
                                ? ` (${planName(candidate.plan)} plan)`
                                : ''}
                            </option>
                          ))}
                        </optgroup>
                      ) : null;
                    })}
                  </select>
                  {needsHigherPlan ? (
                    <p class="hint">
                      {action.kind === 'extract'
                        ? `This tool is part of the ${planName(action.plan)} plan. On your plan you have one free ` +
                          `try of it, with one file.`
                        : `This needs the ${planName(action.plan)} plan or higher.`}
                    </p>
                  ) : null}
                </div>
                {action ? (
                  <OptionsForm
                    schema={action.schema}
                    draft={draft}
                    errors={errors}
                    onChange={setDraft}
                    idPrefix="opt"
                  />
                ) : null}
                {chainable ? (
                  <fieldset class="field group chain">
                    <legend>Then…</legend>
                    {chainSteps.length ? (
                      <ol class="steps">
                        {chainSteps.map((step, index) => (
                          <li key={`${step.id}-${index}`}>
                            <span class="name">{step.label}</span>{' '}
                            <button
                              type="button"
                              aria-label={`Remove step ${index + 2} and the ones after it`}
                              disabled={running}
                              onClick={() => setChain(chainSteps.slice(0, index).map((kept) => kept.id))}
                            >
                              Remove
                            </button>
                          </li>
                        ))}
                      </ol>
                    ) : (
                      <p class="hint">
                        Chain more steps into one job: each works on the previous output, with its default options.
                      </p>
                    )}
                    {nextChoices.length ? (
                      <select
                        id="next-step"
                        aria-label="Add a step"
                        value=""
                        disabled={running}
                        onChange={(event) => {
                          const id = event.currentTarget.value;
                          if (id) setChain([...chainSteps.map((step) => step.id), id]);
                          event.currentTarget.value = '';
                        }}
                      >
                        <option value="">Add a step…</option>
                        {nextChoices.map((choice) => (
                          <option key={choice.id} value={choice.id}>
                            {choice.label}
                          </option>
                        ))}
                      </select>
                    ) : null}
                  </fieldset>
                ) : null}
                {files.length > 1 && (action?.kind === 'convert' || action?.kind === 'tool') ? (
                  <fieldset class="field group">
                    <legend>Results</legend>
                    <label class="inline">
                      <input type="radio" name="delivery" checked={!asZip} onChange={() => setAsZip(false)} /> One
                      download per file
                    </label>
                    <label class="inline">
                      <input type="radio" name="delivery" checked={asZip} onChange={() => setAsZip(true)} /> All in one
                      ZIP (batch, Pro and up)
                    </label>
                  </fieldset>
                ) : null}
                <div class="row">
                  <button type="submit" class="primary" disabled={running || !action}>
                    {running ? 'Working…' : actionButton(action, sources.length, chainSteps.length)}
                  </button>
                  <button type="button" onClick={reset} disabled={running}>
                    Clear
                  </button>
                </div>
              </>
            )}
          </div>
        ) : null}
      </form>

      {tasks.length ? (
        <section class="card" aria-labelledby="results-title">
          <h2 id="results-title">Results</h2>
          <ul class="tasks">
            {tasks.map((task) => (
              <TaskView key={task.key} task={task} onCancel={cancel} />
            ))}
          </ul>
          <p class="hint">
            Downloads stay available for 15 minutes; files are deleted within the hour.{' '}
            <a href="/account" onClick={onLinkClick}>
              Credits and history
            </a>
          </p>
        </section>
      ) : null}
    </section>
  );
}

const planName = (plan: string) => plan.charAt(0).toUpperCase() + plan.slice(1);

/** What the server said a job cost, as it said it. */
const chargeText = (job: Job) =>
  job.creditCost == null
    ? undefined
    : `Charged ${job.creditCost} credit${job.creditCost === 1 ? '' : 's'}` +
      `${job.creditsRemaining == null ? '' : `; ${job.creditsRemaining} left this month`}.`;

const groups: [Action['kind'], string][] = [
  ['convert', 'Convert'],
  ['merge', 'Combine'],
  ['tool', 'Tools'],
  ['extract', 'Extract (results shown here)'],
];

function actionButton(action: Action | undefined, count: number, more = 0): string {
  if (!action) return 'Start';
  if (more)
    return `${action.label}, then ${more} more step${more === 1 ? '' : 's'}${count > 1 ? ` (${count} files)` : ''}`;
  if (action.kind === 'merge') return `Merge ${count} PDFs`;
  if (action.kind === 'extract') return `Run ${action.label}`;
  return count > 1 ? `${action.label} (${count} files)` : action.label;
}

function reportText(job: Job): string | undefined {
  if (!job.toolReport) return undefined;
  const { detected } = job.toolReport;
  return detected === 0 ? 'Nothing was found, so the output is unchanged.' : `Found and handled: ${detected}.`;
}

function TaskView({ task, onCancel }: { task: Task; onCancel: (task: Task) => void }) {
  const id = `task-${task.key}`;
  const percent = task.phase === 'done' ? 100 : task.percent;
  return (
    <li class={`task ${task.phase}`} id={id}>
      <div class="task-head">
        <span class="name">{task.label}</span>
        <span class="phase" aria-live="polite">
          {PHASE_TEXT[task.phase]}
          {task.phase === 'uploading' || task.phase === 'running' ? ` ${percent}%` : ''}
        </span>
      </div>
      <progress
        class="bar"
        max={100}
        value={task.phase === 'failed' ? 0 : percent}
        aria-label={`Progress of ${task.label}`}
      >
        {percent}%
      </progress>
      {task.jobId && (task.phase === 'queued' || task.phase === 'running') ? (
        <button type="button" class="button cancel" onClick={() => onCancel(task)} aria-label={`Cancel ${task.label}`}>
          Cancel
        </button>
      ) : null}
      {task.error ? (
        <p class="error" role="alert">
          {task.error}
        </p>
      ) : null}
      {task.note ? <p class="hint">{task.note}</p> : null}
      {task.charge ? <p class="hint charge">{task.charge}</p> : null}
      {task.downloadUrl ? (
        <a class="button primary download" href={task.downloadUrl} download>
          {task.downloadLabel ?? 'Download'}
        </a>
      ) : null}
      {task.document ? <StructureView document={task.document} /> : null}
      {task.chunks ? <ChunkView chunks={task.chunks} /> : null}
      {task.extraction ? (
        <div class="extraction-rows">
          {task.extraction.totalHits != null ? (
            <p>
              <strong>{task.extraction.totalHits}</strong> hits in all
            </p>
          ) : null}
          {task.extraction.rows.map((row, index) => (
            <article key={index} class="row-result">
              <h3>{row.filename}</h3>
              <ExtractionResult tool={task.extraction!.tool} row={row} />
            </article>
          ))}
        </div>
      ) : null}
    </li>
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
