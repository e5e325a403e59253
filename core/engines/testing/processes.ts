/** The live processes of this machine, read from /proc: for tests that check an engine was killed. */
import { readdir, readFile } from 'node:fs/promises';

/**
 * Processes whose command line mentions `text` (a work dir, an output path), as "pid: command";
 * this test process itself is never listed.
 */
export async function processesMentioning(text: string): Promise<string[]> {
  const found: string[] = [];
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(text)) found.push(`${pid}: ${cmdline.replaceAll('\0', ' ').slice(0, 200)}`);
  }
  return found;
}
