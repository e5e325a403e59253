/**
 * Nothing of a request outlives a crash: a server killed in the middle of a GraphQL upload leaves
 * its request temp files behind, and the next start removes them.
 */
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { admin, spawnServer } from './helpers.js';

async function filesUnder(dir: string): Promise<string[]> {
  const names = await readdir(dir, { recursive: true }).catch(() => [] as string[]);
  const files: string[] = [];
  for (const name of names) if ((await stat(path.join(dir, name)).catch(() => undefined))?.isFile()) files.push(name);
  return files;
}

it('a restart empties the request temp files of a server killed mid-upload', { timeout: 240_000 }, async () => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'transmute-sweep-'));
  try {
    const { result } = await admin(dataDir, 'create-key', '--plan', 'pro');
    let server = await spawnServer({ DATA_DIR: dataDir });
    const boundary = 'sweep-boundary';
    const operations = JSON.stringify({
      query: 'mutation($file: Upload!) { convert(file: $file, to: "webp") { jobId } }',
      variables: { file: null },
    });
    const head = [
      `--${boundary}\r\nContent-Disposition: form-data; name="operations"\r\n\r\n${operations}\r\n`,
      `--${boundary}\r\nContent-Disposition: form-data; name="map"\r\n\r\n{"0":["variables.file"]}\r\n`,
      `--${boundary}\r\nContent-Disposition: form-data; name="0"; filename="big.png"\r\nContent-Type: ` +
        `image/png\r\n\r\n`,
    ].join('');
    const { port } = new URL(server.url);
    const socket = connect(Number(port), '127.0.0.1');
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${result.key}\r\nContent-Type: ` +
        `multipart/form-data; boundary=${boundary}\r\n` +
        `Content-Length: ${head.length + 20_000_000}\r\n\r\n${head}`,
    );
    socket.write(Buffer.alloc(2_000_000, 7)); // a tenth of the file, then the client waits

    const tmp = path.join(dataDir, 'tmp');
    let leftovers: string[] = [];
    // GraphQL's first request builds its schema: a minute on a loaded machine before the upload lands in tmp.
    for (const giveUpAt = Date.now() + 60_000; !leftovers.length && Date.now() < giveUpAt; ) {
      await sleep(100);
      leftovers = await filesUnder(tmp);
    }
    expect(leftovers.length).toBeGreaterThan(0);
    await server.kill('SIGKILL');
    socket.destroy();
    expect((await filesUnder(tmp)).length).toBeGreaterThan(0); // what the crash left

    server = await spawnServer({ DATA_DIR: dataDir, PORT: port });
    try {
      let after = await filesUnder(tmp);
      // The sweep may finish after the server answers /healthz: a loaded machine needs more than a moment.
      for (const giveUpAt = Date.now() + 30_000; after.length && Date.now() < giveUpAt; ) {
        await sleep(100);
        after = await filesUnder(tmp);
      }
      expect(after).toEqual([]);
    } finally {
      await server.kill('SIGTERM');
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
