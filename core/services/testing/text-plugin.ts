/** Test support: a txt -> md conversion the services can accept and queue; its runs go through the executor. */
import { z } from 'zod';
import type { Plugin } from '../../contract/index.js';

export const textToMarkdownTestPlugin = {
  id: 'test-text',
  kind: 'convert',
  title: 'Text to Markdown (test)',
  inputs: ['txt'],
  outputs: ['md'],
  options: z.object({}),
  plan: 'free',
  licenses: [],
  engines: [],
  limits: { timeoutMs: 10_000, concurrency: 1 },
  run: () => Promise.reject(new Error('runs only through the services executor')),
} satisfies Plugin;
