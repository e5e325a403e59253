/**
 * tRPC procedures made from the operation table (apps/server/operations): the operation's zod input
 * and output and its transport-neutral `run`, the same REST serves. The procedure's types come from
 * those zod schemas, so `AppRouter` clients get the table's types; the run itself is typed against
 * them where it is declared (OperationSpec.run), and tRPC checks its answer with the output schema.
 */
import type { z } from 'zod';
import type { OperationSpec } from '../operations/operation.js';
import { authedProcedure } from './trpc.js';

/** An operation of the table with the output schema O. */
// biome-ignore lint/suspicious/noExplicitAny: its input types do not matter here (the procedure's input decides)
type JsonOperation<O extends z.ZodType> = OperationSpec<any, any, any, O>;

function runnerOf<O extends z.ZodType>(operation: JsonOperation<O>) {
  const { run, output } = operation;
  if (!run || !output.schema) throw new Error(`tRPC: operation ${operation.name} has no JSON run to serve`);
  return { run, output: output.schema };
}

/** A query of an operation that takes no input. */
export function queryOf<O extends z.ZodType>(operation: JsonOperation<O>) {
  const { run, output } = runnerOf(operation);
  return authedProcedure.output(output).query(async ({ ctx }) => (await run(ctx.services, ctx.principal, {})) as never);
}

/** A mutation of an operation that takes no input. */
export function mutationOf<O extends z.ZodType>(operation: JsonOperation<O>) {
  const { run, output } = runnerOf(operation);
  return authedProcedure
    .output(output)
    .mutation(async ({ ctx }) => (await run(ctx.services, ctx.principal, {})) as never);
}

/** A query of an operation, its input decoded by `input` (the operation's params, query or body). */
export function queryWith<I extends z.ZodType, O extends z.ZodType>(operation: JsonOperation<O>, input: I) {
  const { run, output } = runnerOf(operation);
  return authedProcedure
    .input(input)
    .output(output)
    .query(async ({ ctx, input: decoded }) => (await run(ctx.services, ctx.principal, decoded)) as never);
}

/** A mutation of an operation, its input decoded by `input`. */
export function mutationWith<I extends z.ZodType, O extends z.ZodType>(operation: JsonOperation<O>, input: I) {
  const { run, output } = runnerOf(operation);
  return authedProcedure
    .input(input)
    .output(output)
    .mutation(async ({ ctx, input: decoded }) => (await run(ctx.services, ctx.principal, decoded)) as never);
}

/**
 * The table's handler, for a procedure whose shape predates the table and differs from REST's
 * (`batch.get({ batchId })`, `webhooks.list` answering the array): the procedure maps its input to
 * the operation's and the answer back, the operation does the work.
 */
export { runOperation } from '../operations/operation.js';
