/** What every web plugin declares: the licences of what it links, the engines it runs, its default limits. */
import type { Plugin } from '../../../core/contract/index.js';
import { CHROMIUM } from '../../../core/engines/chromium.js';

export const webFamily = {
  // What links: nothing of note (the engine drives Chromium over its own pipe); Chromium is declared by its engine.
  licenses: [],
  engines: [CHROMIUM],
  limits: {
    timeoutMs: 60_000,
    concurrency: 2,
    // Counted as the RSS of every Chromium process (renderers share most pages with the browser):
    // a one-page document adds ~600 MB to that sum while using ~150 MB.
    memoryMb: 2048,
  },
} satisfies Pick<Plugin, 'licenses' | 'engines' | 'limits'>;
