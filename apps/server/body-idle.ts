/**
 * Request bodies bounded in idle time (UPLOAD_IDLE_S, core/services/upload-time.ts): a body that sends no byte for
 * that long while the server reads it fails with a 408, as nginx's client_body_timeout. Without it a client could
 * trickle a byte a minute into a JSON body and hold a connection and a request for all of UPLOAD_MAX_S.
 *
 * Two readers, one watch (`watchIdleBody`):
 * - multipart bodies are read by the routes (multipart.ts), which watch them themselves;
 * - every other body is read by Fastify's content-type parsers (JSON for REST, GraphQL and tRPC; text), through
 *   the stream `limitBodyIdle`'s preParsing hook hands them, which fails with the 408 when the body goes idle.
 * Only time while a body is being received counts: a request without a body, a body received whole, a waiting
 * answer (`Prefer: wait`), a subscription, a download and an idle keep-alive connection are never timed.
 */
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { ServiceError } from '../../core/services/errors.js';

const noop = () => {};

/** The body went idle: a 408, answered by each surface in its own format. */
export class BodyIdleError extends ServiceError {
  constructor(idleMs: number, what: 'upload' | 'request') {
    super(
      'REQUEST_TIMEOUT',
      `No data of the request body arrived for ${Math.round(idleMs / 1000)} seconds: the ${what} was ended; ` +
        'send it again',
    );
  }
}

/**
 * Calls `onIdle` once the body has sent nothing for `idleMs`. One timer, not one per chunk: each chunk only notes
 * its time. While the body is paused by its reader (a pipe held back by a slow blob store) the client is not idle;
 * the body's end stops the watch. Returns the stop.
 */
export function watchIdleBody(raw: IncomingMessage, idleMs: number, onIdle: () => void): () => void {
  let lastActive = performance.now();
  const onData = () => {
    lastActive = performance.now();
  };
  let timer: NodeJS.Timeout | undefined;
  const check = () => {
    if (raw.complete) return stop();
    if (raw.readableFlowing === false) lastActive = performance.now();
    const idle = performance.now() - lastActive;
    if (idle >= idleMs) {
      stop();
      onIdle();
    } else timer = setTimeout(check, idleMs - idle);
  };
  const stop = () => {
    clearTimeout(timer);
    raw.off('data', onData);
    raw.off('resume', onData);
    raw.off('end', stop);
  };
  raw.on('data', onData);
  // Reading again after a pause of ours: the client's silence counts from here.
  raw.on('resume', onData);
  raw.once('end', stop);
  timer = setTimeout(check, idleMs);
  return stop;
}

/** Whether the request carries a body at all (HTTP/1.1: a length or a transfer coding). */
function hasBody(raw: IncomingMessage): boolean {
  const length = raw.headers['content-length'];
  return raw.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

const isMultipartRequest = (raw: IncomingMessage) => /^multipart\/form-data\b/i.test(raw.headers['content-type'] ?? '');

/**
 * `raw` as its parser reads it, failing with a BodyIdleError once the client sends nothing for `idleMs`. Lazy: `raw`
 * is not touched until the parser reads, so a request refused before its body (a preParsing check) keeps its body
 * for the early answer's drain (app.ts).
 */
function idleBoundBody(raw: IncomingMessage, idleMs: number): Readable {
  let stopWatch: (() => void) | undefined;
  const onData = (chunk: Buffer) => {
    if (!body.push(chunk)) raw.pause();
  };
  const onEnd = () => {
    release();
    body.push(null);
  };
  const onError = (error: Error) => body.destroy(error);
  const onClose = () => {
    if (!raw.complete) body.destroy(new Error('The request ended before its body was complete'));
  };
  const release = () => {
    stopWatch?.();
    raw.off('data', onData);
    raw.off('end', onEnd);
    raw.off('error', onError);
    raw.off('close', onClose);
  };
  const body = new Readable({
    read() {
      if (!stopWatch) {
        raw.on('data', onData);
        raw.once('end', onEnd);
        raw.on('error', onError);
        raw.once('close', onClose);
        stopWatch = watchIdleBody(raw, idleMs, () => {
          // Read no more of it: the 408 closes the connection (app.ts's onSend).
          raw.pause();
          body.destroy(new BodyIdleError(idleMs, 'request'));
        });
        // Gone before its body was read (behind a slow hook): its 'close' was missed.
        if (raw.destroyed && !raw.complete) onClose();
      }
      raw.resume();
    },
    destroy(error, callback) {
      release();
      callback(error);
    },
  });
  // The parser may have stopped listening (a body over bodyLimit) before the watch ends it.
  body.on('error', noop);
  return body;
}

/**
 * Every body Fastify's parsers read is bounded by `idleMs` without a byte. Multipart bodies are left to the routes'
 * reader (its parser here reads nothing), and requests without a body cost nothing.
 */
export function limitBodyIdle(app: FastifyInstance, idleMs: number): void {
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const { raw } = request;
    if (request.method === 'GET' || request.method === 'HEAD' || !hasBody(raw) || isMultipartRequest(raw))
      done(null, payload);
    else done(null, idleBoundBody(raw, idleMs));
  });
}
