/**
 * Pages per second of the PDF -> Markdown engine in-process, one engine process per core, each
 * converting the given PDFs `passes` times after a warm-up pass (speed-worker.ts): wall-clock,
 * plus the CPU-bound rate (pages per CPU-second x processes), which other load does not distort.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export async function parallelThroughput(
  pdfs: readonly string[],
  { passes, workers }: { passes: number; workers: number },
): Promise<{ wall: number; cpuBound: number; pages: number; seconds: number }> {
  const workerPath = fileURLToPath(new URL('./speed-worker.ts', import.meta.url));
  const children = Array.from({ length: workers }, () =>
    fork(workerPath, [String(passes), ...pdfs], { execArgv: ['--import', 'tsx'] }),
  );
  const nextMessage = (child: ChildProcess) =>
    new Promise<unknown>((resolve, reject) => {
      child.once('message', resolve);
      child.once('error', reject);
    });
  try {
    await Promise.all(children.map(nextMessage)); // each has done its warm-up pass
    const started = performance.now();
    const done = children.map(nextMessage);
    for (const child of children) child.send('go');
    const reports = (await Promise.all(done)) as { pages: number; cpuSeconds: number }[];
    const seconds = (performance.now() - started) / 1000;
    const pages = reports.reduce((n, r) => n + r.pages, 0);
    const cpuSeconds = reports.reduce((n, r) => n + r.cpuSeconds, 0);
    return { wall: pages / seconds, cpuBound: (pages / cpuSeconds) * workers, pages, seconds };
  } finally {
    for (const child of children) child.kill();
  }
}
