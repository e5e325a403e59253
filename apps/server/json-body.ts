/**
 * JSON request bodies are checked before they are parsed. Parsing costs time in proportion to the nesting as
 * much as to the size: a 1 MB body of `[[[...]]]` takes JSON.parse 100-300 ms, a flat one 5 ms, and the event
 * loop serves nobody meanwhile. So, before JSON.parse:
 * - a request without a key or a live session (sign-up, sign-in, GraphQL's public fields) may send at most
 *   ANONYMOUS_JSON_LIMIT_BYTES: refused by its declared length before it is read (preParsing), else once read;
 * - every JSON body, whoever sends it, may nest at most MAX_JSON_DEPTH arrays and objects, checked by one
 *   linear scan.
 * The authentication hook (auth.ts) has run by then: it is an onRequest hook, and bodies are read after it.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** The largest JSON body a caller without credentials may send: sign-up and sign-in need far less. */
export const ANONYMOUS_JSON_LIMIT_BYTES = 64 * 1024;
/** The deepest nesting of arrays and objects a JSON body may have (the API's own bodies need fewer than 10). */
export const MAX_JSON_DEPTH = 64;

class BodyRefused extends Error {
  constructor(
    message: string,
    readonly statusCode: 400 | 413,
  ) {
    super(message);
  }
}

/** Whether the request is a JSON one (what Fastify's JSON parser would take). */
function isJson(request: FastifyRequest): boolean {
  const type = request.headers['content-type'];
  return typeof type === 'string' && /^application\/json\s*(;|$)/i.test(type);
}

const withoutCredentials = (request: FastifyRequest) => request.principal === undefined;

function tooLargeForAnonymous(): BodyRefused {
  return new BodyRefused(
    `A JSON body without an API key or a signed-in session may be at most ${ANONYMOUS_JSON_LIMIT_BYTES / 1024} KB`,
    413,
  );
}

/** Whether `text` nests arrays and objects deeper than `limit` (strings skipped, escapes honoured); linear. */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** Throws a 413 or 400 (an error Fastify's error handler answers as `{error}`) for a body not to be parsed. */
export function checkJsonBody(request: FastifyRequest, body: string): void {
  if (withoutCredentials(request) && Buffer.byteLength(body) > ANONYMOUS_JSON_LIMIT_BYTES) throw tooLargeForAnonymous();
  if (nestsDeeperThan(body, MAX_JSON_DEPTH))
    throw new BodyRefused(`The JSON body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`, 400);
}

/**
 * In the authenticated scope (after auth.ts's hook): JSON bodies go through checkJsonBody before Fastify's own
 * parser (prototype poisoning refused as before); a caller without credentials declaring a large body is refused
 * before it is read.
 */
export function guardJsonBodies(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    try {
      checkJsonBody(request, body as string);
    } catch (err) {
      done(err as Error, undefined);
      return;
    }
    void parse(request, body as string, done);
  });
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const declared = Number(request.headers['content-length']);
    if (isJson(request) && withoutCredentials(request) && declared > ANONYMOUS_JSON_LIMIT_BYTES)
      done(tooLargeForAnonymous(), payload);
    else done(null, payload);
  });
}
