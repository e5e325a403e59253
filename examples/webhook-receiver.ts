/**
 * A webhook receiver in 20 lines: `TRANSMUTE_WEBHOOK_SECRET=whsec_... npx tsx examples/webhook-receiver.ts` (port
 * 8080).
 */
import { createServer } from 'node:http';
import { verifyWebhook } from '../core/webhooks/index.js'; // a package user: from 'transmute/webhooks'

const secret = process.env.TRANSMUTE_WEBHOOK_SECRET!; // shown once when the endpoint was registered
const seen = new Set<string>(); // keep these in your database: webhook-id is the same on every retry

createServer((req, res) => {
  const chunks: Buffer[] = [];
  req
    .on('data', (chunk: Buffer) => chunks.push(chunk))
    .on('end', () => {
      try {
        const event = verifyWebhook(secret, req.headers, Buffer.concat(chunks)); // throws unless signed, and recent
        const id = String(req.headers['webhook-id']);
        if (!seen.has(id)) {
          seen.add(id);
          console.log(event.type, event.data); // e.g. job.done { status: 'done', downloadUrl, expiresIn: 900 }
        }
        res.writeHead(204).end();
      } catch {
        res.writeHead(400).end();
      }
    });
}).listen(8080);
