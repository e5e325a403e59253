import { singleInput, type PluginInput, type JsonResult, type RunContext } from '../../../core/contract/index.js';
import type { ReferenceMonth } from '../shared/experience.js';
import { parseCv } from '../shared/parse.js';
import { cvText } from '../shared/text.js';

/** The current month: the only clock read, so the parser itself stays deterministic. */
function currentMonth(): ReferenceMonth {
  const today = new Date(Date.now());
  return { year: today.getUTCFullYear(), month: today.getUTCMonth() + 1 };
}

export async function parseCvRun(
  inputs: readonly PluginInput[],
  _options: unknown,
  ctx: RunContext,
): Promise<JsonResult> {
  const { text, ocr } = await cvText(singleInput(inputs), ctx);
  // pdf.js may still hand over the last page after an abort destroyed its document.
  ctx.signal.throwIfAborted();
  const row = parseCv(text, { now: currentMonth(), ocr });
  ctx.progress(100);
  return { row: { ...row } };
}
