/**
 * The soak's webhook receiver on 127.0.0.1: verifies each delivery's signature with the exported helper and records
 * it; answers some first deliveries 500 so retries (which must carry the same webhook-id) happen too.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook } from '../../core/webhooks/index.js';
import type { Random } from '../testing/random.js';

export interface Delivery {
  webhookId: string;
  type: string;
  /** The job's or batch's id. */
  subject: string;
  status: string | undefined;
  at: number;
}

export class WebhookReceiver {
  readonly deliveries: Delivery[] = [];
  /** Requests whose signature did not verify (an invariant violation each). */
  readonly unverified: string[] = [];
  private readonly secrets = new Map<string, string>();
  private readonly refusedOnce = new Set<string>();
  private server!: Server;
  url = '';

  constructor(
    private readonly random: Random,
    private readonly refuseShare = 0.05,
  ) {}

  /** The path deliveries for `name` go to, with the secret that signs them. */
  register(name: string, secret: string): void {
    this.secrets.set(`/hooks/${name}`, secret);
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const secret = this.secrets.get(req.url ?? '');
        const body = Buffer.concat(chunks);
        try {
          if (!secret) throw new Error(`no endpoint at ${req.url}`);
          const event = verifyWebhook<{ type: string; data: { jobId?: string; batchId?: string; status?: string } }>(
            secret,
            req.headers as Record<string, string>,
            body,
          );
          const webhookId = String(req.headers['webhook-id']);
          this.deliveries.push({
            webhookId,
            type: event.type,
            subject: event.data.jobId ?? event.data.batchId ?? '',
            status: event.data.status,
            at: Date.now(),
          });
          if (!this.refusedOnce.has(webhookId) && this.random.next() < this.refuseShare) {
            this.refusedOnce.add(webhookId);
            return void res.writeHead(500).end('try again');
          }
          res.writeHead(204).end();
        } catch (err) {
          this.unverified.push(`${req.url}: ${(err as Error).message}`);
          res.writeHead(400).end();
        }
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    if (!this.server) return Promise.resolve();
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
