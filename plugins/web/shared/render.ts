/** What every web plugin shares: its engine, limits, and the call that prints a page to the run's output. */
import path from 'node:path';
import type { PluginLimits, RunContext } from '../../../core/contract/index.js';
import { CHROMIUM, renderPdf, type PageSource, type PdfRenderOptions } from '../../../core/engines/chromium.js';

export const WEB_ENGINES = [CHROMIUM];
/** What links: playwright-core (Apache-2.0); Chromium is declared by its engine. */
export const WEB_LICENSES = ['Apache-2.0'];

export const webLimits: PluginLimits = {
  timeoutMs: 60_000,
  concurrency: 2,
  // Counted as the RSS of every Chromium process (renderers share most pages with the browser):
  // a one-page document adds ~600 MB to that sum while using ~150 MB.
  memoryMb: 2048,
};

/** Print `source` to `<workDir>/<name>.pdf`, counting refused requests in the log. */
export async function printToPdf(
  source: PageSource,
  name: string,
  options: PdfRenderOptions,
  ctx: RunContext,
): Promise<string> {
  const output = path.join(ctx.workDir, `${name}.pdf`);
  ctx.progress(10);
  await renderPdf(source, output, options, ctx);
  ctx.progress(100);
  return output;
}

export function blockedCounter(ctx: RunContext): (url: string) => void {
  let blocked = 0;
  return (url) => {
    blocked++;
    if (blocked <= 5) ctx.log.info('web: request refused (offline rendering)', { url: url.slice(0, 200) });
  };
}
