/**
 * `to` and `op` as the spec writes them: exact lower-case values (`to=pdf`, `op=compress`).
 * Surrounding whitespace is trimmed; any other spelling is a 400 naming the field, never a guess.
 * This is the one place the wire's `to` is read: past it, the services, the stored job, the runner and the
 * plugin (`RunContext.target`) call it the target.
 */
import { canonicalFormat } from '../../schema/index.js';
import { badRequest } from './errors.js';

/** Quoted back in the message only when it is short and plain; otherwise the generic example. */
const example = (value: string, fallback: string) => (/^[a-z0-9-]{1,40}$/.test(value) ? value : fallback);

/** The requested output format (`to`): required, lower-case, under the id plugins know it by (jpeg -> jpg). */
export function parseTarget(raw: string | undefined): string {
  const to = raw?.trim();
  if (!to) throw badRequest("Missing 'to': the output format, e.g. to=webp");
  if (to !== to.toLowerCase())
    throw badRequest(`Invalid 'to': formats are lower-case extensions, e.g. to=${example(to.toLowerCase(), 'pdf')}`);
  return canonicalFormat(to);
}

/** The requested tool op, if any: lower-case. */
export function parseOp(raw: string | undefined): string | undefined {
  const op = raw?.trim() || undefined;
  if (op !== undefined && op !== op.toLowerCase())
    throw badRequest(`Invalid 'op': ops are lower-case names, e.g. op=${example(op.toLowerCase(), 'compress')}`);
  return op;
}
