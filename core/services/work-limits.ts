/**
 * Bounded work per job: a plugin declares what its work grows with (pages, seconds of
 * media, megapixels) and the most one job may carry (`limits.work`). Acceptance measures the
 * inputs and refuses a job past the maximum with a 400 that names the limit; the runner measures
 * again (the worker may be another machine) and hands the amount to the plugin's deadline, unless this process
 * accepted the job and still holds its measure (AcceptedMeasures).
 */
import type { InputFacts, Plugin, PluginInput } from '../contract/index.js';
import { withEngineScope } from '../engines/confine.js';
import { badRequest } from './errors.js';

/** How long one measure may take: an engine's page count or a media probe, never the work itself. */
const MEASURE_TIMEOUT_MS = 30_000;

/**
 * The declared measure of all inputs together; undefined when the plugin declares none or an input cannot be measured.
 */
export async function measureWork(
  plugin: Plugin,
  inputs: readonly PluginInput[],
  workDir: string,
  signal?: AbortSignal,
): Promise<number | undefined> {
  return (await measureInputs(plugin, inputs, workDir, signal, false)).total;
}

/**
 * measureWork, with what the measure read of each input that its run may reuse (WorkMeasure.measureWithFacts), in the
 * order of `inputs`: acceptance keeps it for a run in the same process (AcceptedMeasures).
 */
export function measureWorkAndFacts(
  plugin: Plugin,
  inputs: readonly PluginInput[],
  workDir: string,
  signal?: AbortSignal,
): Promise<{ total: number | undefined; facts: Array<InputFacts | undefined> }> {
  return measureInputs(plugin, inputs, workDir, signal, true);
}

async function measureInputs(
  plugin: Plugin,
  inputs: readonly PluginInput[],
  workDir: string,
  signal: AbortSignal | undefined,
  withFacts: boolean,
): Promise<{ total: number | undefined; facts: Array<InputFacts | undefined> }> {
  const work = plugin.limits.work;
  const facts: Array<InputFacts | undefined> = [];
  if (!work) return { total: undefined, facts };
  let total = 0;
  for (const input of inputs) {
    const ctx = { signal: signal ?? AbortSignal.timeout(MEASURE_TIMEOUT_MS), timeoutMs: MEASURE_TIMEOUT_MS, workDir };
    // The client's file, read by an engine (ffprobe, pdfinfo): in a jail that sees only it and the measure's folder,
    // wherever this runs (configureScopedConfinement).
    const measuring: Promise<{ amount: number | undefined; facts?: InputFacts }> = withEngineScope(
      { writable: work.readsOnly ? [] : [workDir], readable: [input.path] },
      () =>
        withFacts && work.measureWithFacts
          ? work.measureWithFacts(input, ctx)
          : work.measure(input, ctx).then((amount) => ({ amount })),
    );
    const measured = await measuring.catch(() => undefined);
    const amount = measured?.amount;
    // A file the measure cannot read is judged by the run, as before (with its own messages).
    if (amount === undefined || !Number.isFinite(amount)) return { total: undefined, facts };
    facts.push(measured?.facts);
    total += amount;
  }
  return { total, facts };
}

/** 400 naming the limit when `measured` is past the plugin's maximum. */
export function checkWork(plugin: Plugin, operation: string, measured: number | undefined, what: string): void {
  const work = plugin.limits.work;
  if (!work || measured === undefined || measured <= work.max) return;
  const most = describeAmount(work.max, work.unit);
  // Just past the limit rounds to it ("2 hours of media"): then the exact amount shows why.
  const has =
    describeAmount(measured, work.unit) === most
      ? describeExactly(measured, work.unit)
      : describeAmount(measured, work.unit);
  throw badRequest(
    `${operation} takes at most ${most} per job; ${what} has ${has}` +
      (work.unit === 'pages'
        ? plugin.inputs.includes('pdf')
          ? ': split it first (op split-pdf)'
          : ': split it into smaller documents first'
        : work.unit === 'seconds'
          ? ': cut it first (op trim-media)'
          : ': scale it down first'),
  );
}

export function describeAmount(amount: number, unit: string): string {
  if (unit === 'seconds') {
    const hours = Number((amount / 3600).toFixed(2));
    return hours >= 1 ? `${hours} hour${hours === 1 ? '' : 's'} of media` : `${Math.round(amount)} seconds of media`;
  }
  return `${Number(amount.toFixed(unit === 'megapixels' ? 1 : 0)).toLocaleString('en-US')} ${unit}`;
}

function describeExactly(amount: number, unit: string): string {
  const rounded = Number(amount.toFixed(2)).toLocaleString('en-US');
  return unit === 'seconds' ? `${rounded} seconds of media` : `${rounded} ${unit}`;
}

/**
 * The work to give a run's deadline: `known` when the caller has measured these inputs already, nothing when the
 * plugin's deadline does not read it, else measured now.
 */
export async function workForDeadline(
  plugin: Plugin,
  inputs: readonly PluginInput[],
  workDir: string,
  signal: AbortSignal | undefined,
  known?: { measured: number | undefined },
): Promise<number | undefined> {
  if (known) return known.measured;
  if (plugin.limits.work?.scalesDeadline === false) return undefined;
  return measureWork(plugin, inputs, workDir, signal);
}

/** The run's deadline: the manifest's, given the measured work. */
export function runTimeoutMs(plugin: Plugin, inputs: readonly PluginInput[], measured: number | undefined): number {
  const { timeoutMs } = plugin.limits;
  return typeof timeoutMs === 'function' ? timeoutMs(inputs, measured) : timeoutMs;
}
