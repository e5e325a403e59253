/** Plugins that misbehave on purpose, for the sandbox's own tests. */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { definePlugin, PluginError, type Plugin } from '../../../contract/index.js';
import { libreOfficeConvert } from '../../libreoffice.js';
import { runProcess } from '../../process.js';

const base = {
  kind: 'convert',
  inputs: ['txt'],
  outputs: ['md'],
  options: z.object({ ms: z.number().default(0) }),
  plan: 'free',
  licenses: [],
  engines: [],
} as const;
const limits = { timeoutMs: 60_000, concurrency: 1 };

const plugins: Plugin[] = [
  definePlugin({
    ...base,
    id: 'sandbox-echo',
    title: 'Echo',
    limits,
    async run([input], _options, ctx) {
      ctx.progress(50);
      ctx.report({ detected: 3 });
      ctx.log.info('echo ran', { pid: process.pid });
      const out = path.join(ctx.workDir, 'out.md');
      await writeFile(out, `pid ${process.pid} ${input!.filename}`);
      return { path: out, format: 'md' };
    },
  }),
  definePlugin({
    ...base,
    id: 'sandbox-spin',
    title: 'Spin',
    limits,
    async run() {
      // A synchronous loop: no signal can stop it, only the pool's kill.
      for (;;) Math.sqrt(Math.random());
    },
  }),
  definePlugin({
    ...base,
    id: 'sandbox-hog',
    title: 'Hog',
    limits,
    async run() {
      const hold: Buffer[] = [];
      for (;;) {
        hold.push(Buffer.alloc(20_000_000, 1));
        await new Promise((r) => setTimeout(r, 5));
      }
    },
  }),
  definePlugin({
    ...base,
    id: 'sandbox-engine',
    title: 'Engine',
    limits,
    async run(_inputs, _options, ctx) {
      await runProcess('sleep', ['300'], { timeoutMs: 600_000 }); // ignores ctx.signal on purpose
      throw new PluginError(`unreachable ${ctx.workDir}`);
    },
  }),
  definePlugin({
    ...base,
    id: 'sandbox-crash',
    title: 'Crash',
    limits,
    async run() {
      setTimeout(() => {
        throw new Error('stray error in a callback');
      }, 10);
      return new Promise(() => {});
    },
  }),
  definePlugin({
    ...base,
    id: 'sandbox-refuse',
    title: 'Refuse',
    limits,
    async run() {
      throw new PluginError('This file is not what it claims');
    },
  }),
  definePlugin({
    ...base,
    id: 'sandbox-which',
    title: 'Which binary',
    limits,
    async run(_inputs, _options, ctx) {
      // `tool-under-test` only exists as an override pointing at /bin/echo.
      const { stdout } = await runProcess('tool-under-test', ['resolved'], { timeoutMs: 5_000 });
      const out = path.join(ctx.workDir, 'which.md');
      await writeFile(out, stdout);
      return { path: out, format: 'md' };
    },
  }),
  definePlugin({
    ...base,
    id: 'sandbox-look',
    title: 'What an engine sees',
    limits,
    options: z.object({ script: z.string() }),
    async run(_inputs, { script }, ctx) {
      // A shell as the engine: prints what it can read and reach (confinement tests).
      const { stdout } = await runProcess('sh', ['-c', script], { timeoutMs: 10_000 });
      const out = path.join(ctx.workDir, 'look.md');
      await writeFile(out, stdout);
      return { path: out, format: 'md' };
    },
  }),
  definePlugin({
    ...base,
    id: 'sandbox-polite',
    title: 'Polite',
    limits,
    async run(_inputs, _options, ctx) {
      await new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)));
      throw new Error('unreachable');
    },
  }),
  definePlugin({
    ...base,
    id: 'sandbox-office',
    title: 'Office',
    limits,
    /** Text -> PDF with LibreOffice: the server's pool when it has one. `source` (an option) replaces the input. */
    async run([input], options, ctx) {
      const source = (options as { source?: string }).source ?? input!.path;
      const { output, lastStderrLine } = await libreOfficeConvert({
        input: source,
        convertTo: 'pdf:writer_pdf_Export',
        inputFilter: 'Text (encoded):UTF8',
        outDir: path.join(ctx.workDir, 'out'),
        profileDir: path.join(ctx.workDir, 'profile'),
        signal: ctx.signal,
        timeoutMs: ctx.remainingMs(),
      });
      if (!output) throw new PluginError(`no output: ${lastStderrLine}`);
      ctx.log.info('office converted', { pid: process.pid });
      return { path: output, format: 'md' };
    },
  }),
];
export default plugins;
