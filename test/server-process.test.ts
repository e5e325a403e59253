/**
 * The API server runs with the same V8 flags and environment wherever it starts: `npm start`, the Docker image, and
 * the tests that spawn it (test/helpers.ts SERVER_NODE_FLAGS and SERVER_ENV, used by spawnServer and the hostile
 * suite). A memory figure measured in a test is then the shipped server's.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, SERVER_ENV, SERVER_NODE_FLAGS } from './helpers.js';

describe('the API server process, as shipped and as tested', () => {
  it('npm start passes the same node flags and environment as the tests', async () => {
    const { scripts } = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8'));
    const start: string = scripts.start;
    const command = /exec node (.*)"\$app\/apps\/server\/main\.js"/.exec(start);
    expect(command, 'npm start runs the compiled server').not.toBeNull();
    expect(command![1]!.trim().split(/\s+/)).toEqual([...SERVER_NODE_FLAGS]);
    // An operator's own value wins: NAME=${NAME:-default}.
    for (const [name, value] of Object.entries(SERVER_ENV)) expect(start).toContain(`${name}=\${${name}:-${value}}`);
  });

  it('the Docker image runs the server with them too', async () => {
    const dockerfile = await readFile(path.join(ROOT, 'docker/Dockerfile'), 'utf8');
    const cmd = /^CMD (\[.*\])$/m.exec(
      dockerfile
        .split('\n')
        .filter((line) => line.startsWith('CMD '))
        .at(-1) ?? '',
    );
    expect(cmd, 'the final CMD').not.toBeNull();
    const argv: string[] = JSON.parse(cmd![1]!);
    const env = argv.slice(argv.indexOf('env') + 1, argv.indexOf('node'));
    expect(env).toEqual(Object.entries(SERVER_ENV).map(([name, value]) => `${name}=${value}`));
    const main = argv.findIndex((arg) => arg.endsWith('apps/server/main.js'));
    expect(argv.slice(argv.indexOf('node') + 1, main)).toEqual([...SERVER_NODE_FLAGS]);
  });
});
