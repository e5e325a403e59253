/**
 * A TCP proxy on 127.0.0.1 for one link (a worker to PostgreSQL, an API to S3...), whose behaviour the soak's fault
 * injector changes at run time. This machine's kernel has no `netem`, so delay and partitions are made here:
 * - `pass`: bytes go through as they come;
 * - `delay`: every chunk, both ways, goes `ms` later (in order);
 * - `cut`: a partition that heals: nothing goes through (open connections hold their bytes, new ones are accepted
 *   and wait), and on `pass` everything held is delivered, as TCP would once its retransmissions got through;
 * - `reset`: open connections are destroyed and new ones closed at once (a peer that went away);
 * - `http503`: open connections are destroyed and every new request is answered 503 (an S3 server refusing).
 */
import { createServer, Socket, type AddressInfo, type Server } from 'node:net';

export type LinkMode =
  | { kind: 'pass' }
  | { kind: 'delay'; ms: number }
  | { kind: 'cut' }
  | { kind: 'reset' }
  | {
      kind: 'http503';
    };

interface Pipe {
  client: Socket;
  upstream: Socket | null;
  /** Chunks held while the link is cut, per direction, in order. */
  held: Array<{ toUpstream: boolean; chunk: Buffer }>;
  /** When the last delayed chunk of each direction goes: a later one never overtakes it. */
  lastAt: { up: number; down: number };
}

const HTTP_503 =
  'HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/xml\r\nContent-Length: 0\r\nConnection: close\r\n\r\n';

export class TcpProxy {
  private server: Server | null = null;
  private readonly pipes = new Set<Pipe>();
  private current: LinkMode = { kind: 'pass' };
  port = 0;

  constructor(
    readonly name: string,
    private readonly targetPort: number,
  ) {}

  get mode(): LinkMode {
    return this.current;
  }

  async start(port = 0): Promise<number> {
    const server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    return this.port;
  }

  set(mode: LinkMode): void {
    const was = this.current;
    this.current = mode;
    if (mode.kind === 'reset' || mode.kind === 'http503') {
      for (const pipe of this.pipes) this.destroy(pipe);
      return;
    }
    if (was.kind === 'cut' && mode.kind !== 'cut') {
      for (const pipe of [...this.pipes]) {
        if (!pipe.upstream) this.connect(pipe);
        const held = pipe.held.splice(0);
        for (const { toUpstream, chunk } of held) this.forward(pipe, toUpstream, chunk);
      }
    }
  }

  async close(): Promise<void> {
    for (const pipe of this.pipes) this.destroy(pipe);
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private accept(client: Socket): void {
    client.on('error', () => undefined);
    if (this.current.kind === 'reset') return void client.destroy();
    if (this.current.kind === 'http503') {
      client.once('data', () => client.end(HTTP_503));
      return;
    }
    const pipe: Pipe = { client, upstream: null, held: [], lastAt: { up: 0, down: 0 } };
    this.pipes.add(pipe);
    client.on('data', (chunk: Buffer) => this.forward(pipe, true, chunk));
    client.on('close', () => this.destroy(pipe));
    if (this.current.kind !== 'cut') this.connect(pipe);
  }

  private connect(pipe: Pipe): void {
    const upstream = new Socket();
    pipe.upstream = upstream;
    upstream.on('error', () => this.destroy(pipe));
    upstream.on('close', () => this.destroy(pipe));
    upstream.on('data', (chunk: Buffer) => this.forward(pipe, false, chunk));
    upstream.connect(this.targetPort, '127.0.0.1');
  }

  private forward(pipe: Pipe, toUpstream: boolean, chunk: Buffer): void {
    const mode = this.current;
    if (mode.kind === 'cut' || (toUpstream && !pipe.upstream)) {
      pipe.held.push({ toUpstream, chunk });
      return;
    }
    const target = toUpstream ? pipe.upstream! : pipe.client;
    const direction = toUpstream ? 'up' : 'down';
    const now = Date.now();
    // A chunk never overtakes one still delayed, after the delay has been lifted too.
    const at = Math.max(now + (mode.kind === 'delay' ? mode.ms : 0), pipe.lastAt[direction]);
    if (at <= now) {
      if (!target.destroyed) target.write(chunk);
      return;
    }
    pipe.lastAt[direction] = at;
    setTimeout(() => {
      if (!target.destroyed) target.write(chunk);
    }, at - now).unref();
  }

  private destroy(pipe: Pipe): void {
    if (!this.pipes.delete(pipe)) return;
    pipe.client.destroy();
    pipe.upstream?.destroy();
  }
}
