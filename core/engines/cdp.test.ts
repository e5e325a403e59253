import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CdpClosedError, CdpConnection, CdpError } from './cdp.js';
import { killGroup } from './execution/process-tree.js';

/** Debian's headless shell, started as the engine starts it: its pipe on fds 3 and 4. */
async function startBrowser(profile: string) {
  const child = spawn(
    '/usr/lib/chromium/chromium-headless-shell',
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      `--user-data-dir=${profile}`,
      '--remote-debugging-pipe',
      '--no-startup-window',
    ],
    { detached: true, stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, exited, cdp: new CdpConnection(child.stdio[3] as Writable, child.stdio[4] as Readable) };
}

describe('the DevTools pipe client, against a real Chromium', () => {
  let profile: string;
  let browser: Awaited<ReturnType<typeof startBrowser>>;
  beforeAll(async () => {
    profile = await mkdtemp(path.join(os.tmpdir(), 'cdp-test-'));
    browser = await startBrowser(profile);
  });
  afterAll(async () => {
    killGroup(browser.child.pid);
    await browser.exited;
    await rm(profile, { recursive: true, force: true });
  });

  it('answers commands, routes a page session and its events, and reports protocol errors', async () => {
    const { cdp } = browser;
    expect((await cdp.send('Browser.getVersion')).product).toMatch(/Chrome/);
    const { browserContextId } = await cdp.send('Target.createBrowserContext');
    const { targetId } = await cdp.send('Target.createTarget', { url: 'about:blank', browserContextId });
    const { sessionId } = await cdp.send('Target.attachToTarget', { targetId, flatten: true });

    // An event of this session only, in the order sent.
    const loaded = new Promise<void>((resolve) => {
      const remove = cdp.on('Page.loadEventFired', sessionId, () => {
        remove();
        resolve();
      });
    });
    let browserLevel = 0;
    cdp.on('Page.loadEventFired', undefined, () => browserLevel++);
    await cdp.send('Page.enable', {}, sessionId);
    const html = `<title>Piped</title><p>${'x'.repeat(300_000)}</p>`;
    await cdp.send('Page.navigate', { url: `data:text/html,${encodeURIComponent(html)}` }, sessionId);
    await loaded;
    expect(browserLevel).toBe(0);
    // A reply larger than one pipe read arrives whole.
    const { result } = await cdp.send(
      'Runtime.evaluate',
      { expression: 'document.title + document.body.textContent', returnByValue: true },
      sessionId,
    );
    expect(result.value).toBe(`Piped${'x'.repeat(300_000)}`);

    const refused = await cdp.send('No.suchMethod').catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(CdpError);
    expect((refused as Error).message).toMatch(/wasn't found/);
    await cdp.send('Target.disposeBrowserContext', { browserContextId });
  }, 60_000);

  it('rejects every pending command and every later one once the browser is gone', async () => {
    const { cdp, child } = browser;
    const { browserContextId } = await cdp.send('Target.createBrowserContext');
    const { targetId } = await cdp.send('Target.createTarget', { url: 'about:blank', browserContextId });
    const { sessionId } = await cdp.send('Target.attachToTarget', { targetId, flatten: true });
    // A command the browser never answers before it is killed.
    const pending = cdp
      .send('Runtime.evaluate', { expression: 'new Promise(() => {})', awaitPromise: true }, sessionId)
      .catch((err: unknown) => err);
    let told = 0;
    cdp.onClose(() => told++);
    killGroup(child.pid);
    await cdp.closed;
    expect(told).toBe(1);
    expect(cdp.isClosed).toBe(true);
    expect(await pending).toBeInstanceOf(CdpClosedError);
    await expect(cdp.send('Browser.getVersion')).rejects.toBeInstanceOf(CdpClosedError);
  }, 60_000);
});
