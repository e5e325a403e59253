/**
 * The family descriptor: what every plugin of this package links, its engines and default limits,
 * written once; each manifest spreads it (`...exampleFamily`) and overrides what differs.
 */
import type { Plugin } from 'transmute/contract';

export const exampleFamily = {
  licenses: ['MIT'], // csv-parse
  engines: [],
  limits: { timeoutMs: 30_000, concurrency: 2 },
} satisfies Pick<Plugin, 'licenses' | 'engines' | 'limits'>;
